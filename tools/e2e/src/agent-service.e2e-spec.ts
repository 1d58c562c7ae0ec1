/**
 * The agent in service mode: its risk comes from the notifications service's risk route through the gateway, its
 * closes from txb; with the notifications service stopped it falls back to the ledger (degraded) and still closes.
 */
import { UNIT } from '@rp/sandbox';
import { type AgentStack, type AgentStatus, startAgentStack } from './support/agent-stack';

const CRITICAL_XLM_PRICE = 2_800_000n;
const DEMO_XLM_PRICE = 3_000_000n;
const confirmed = (s: AgentStatus) => s.recentCloses.find((close) => close.outcome === 'confirmed');

describe('the risk agent with the risk service', () => {
  let stack: AgentStack;

  beforeAll(async () => {
    stack = await startAgentStack({ redisDb: 13, notifications: true });
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  });

  afterEach(() => stack.setXlmPrice(DEMO_XLM_PRICE));

  it('service mode: positions from the risk route, the close from txb, confirmed on the ledger', async () => {
    const owner = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n, usdcForKey: 1n * UNIT });
    // No WATCHED_POOLS: the pool is known from the service alone.
    const agent = await stack.agent(owner, { WATCHED_POOLS: '', POLL_INTERVAL_MS: '2000' });
    const watching = await stack.until(
      agent,
      (s) => s.mode === 'service' && s.presigned.entries === 1,
      'service mode with a presigned close',
      90_000,
    );
    expect(watching.positions).toEqual([
      expect.objectContaining({ poolAddress: stack.scenario.pool, riskLevel: 'high' }),
    ]);
    stack.setXlmPrice(CRITICAL_XLM_PRICE);
    const closed = await stack.until(agent, (s) => confirmed(s) !== undefined, 'a confirmed close');
    expect(confirmed(closed)?.riskSnapshot.source).toBe('service');
    // txb's close passed the signing rule as it was (no refusal, no fallback to the agent's own build).
    expect(closed.refusals).toEqual([]);
    expect((await stack.rpc.getTransaction(confirmed(closed)?.txHash ?? '')).status).toBe('SUCCESS');
    expect(await stack.position(owner.address)).toEqual({ collateral: 0, liabilities: 0, healthFactor: null });
  }, 180_000);

  it('with the notifications service stopped, it protects from the ledger (degraded) and still closes', async () => {
    const owner = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n, usdcForKey: 1n * UNIT });
    const agent = await stack.agent(owner, { WATCHED_POOLS: '', POLL_INTERVAL_MS: '2000' });
    await stack.until(agent, (s) => s.mode === 'service' && s.positions.length === 1, 'service mode', 90_000);
    await stack.notifications?.stop();
    await stack.until(agent, (s) => s.mode === 'degraded' && s.positions.length === 1, 'degraded mode');
    stack.setXlmPrice(CRITICAL_XLM_PRICE);
    const closed = await stack.until(agent, (s) => confirmed(s) !== undefined, 'a confirmed close');
    expect(confirmed(closed)?.riskSnapshot.source).toBe('ledger');
    expect(closed.refusals).toEqual([]);
    expect(await stack.position(owner.address)).toEqual({ collateral: 0, liabilities: 0, healthFactor: null });
  }, 180_000);
});
