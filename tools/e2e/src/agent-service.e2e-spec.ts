/**
 * The agent in service mode: its risk comes from the notifications service's risk route through the gateway, its
 * closes from txb; with the notifications service stopped it falls back to the ledger (degraded) and still closes.
 */
import { type Stack, startStack } from '@rp/dev';
import { UNIT } from '@rp/sandbox';
import { type AgentCalls, type AgentStatus, agentCalls, agentStack } from './support/agents';

const CRITICAL_XLM_PRICE = 2_800_000n;
const DEMO_XLM_PRICE = 3_000_000n;
const confirmed = (s: AgentStatus) => s.recentCloses.find((close) => close.outcome === 'confirmed');

describe('the risk agent with the risk service', () => {
  let stack: Stack;
  let agents: AgentCalls;

  beforeAll(async () => {
    stack = await startStack(agentStack({ redisDb: 13, notifications: true }));
    agents = agentCalls(stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  });

  afterEach(() => agents.setXlmPrice(DEMO_XLM_PRICE));

  it('service mode: positions from the risk route, the close from txb, confirmed on the ledger', async () => {
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n, usdcForKey: 1n * UNIT });
    // No WATCHED_POOLS: the pool is known from the service alone.
    const agent = await agents.start(owner, { WATCHED_POOLS: '', POLL_INTERVAL_MS: '2000' });
    const watching = await agents.until(
      agent,
      (s) => s.mode === 'service' && s.presigned.entries === 1,
      'service mode with a presigned close',
      90_000,
    );
    expect(watching.positions).toEqual([
      expect.objectContaining({ poolAddress: stack.scenario.pool, riskLevel: 'high' }),
    ]);
    agents.setXlmPrice(CRITICAL_XLM_PRICE);
    const closed = await agents.until(agent, (s) => confirmed(s) !== undefined, 'a confirmed close');
    expect(confirmed(closed)?.riskSnapshot.source).toBe('service');
    // txb's close passed the signing rule as it was (no refusal, no fallback to the agent's own build).
    expect(closed.refusals).toEqual([]);
    expect((await stack.ledger.getTransaction(confirmed(closed)?.txHash ?? '')).status).toBe('SUCCESS');
    expect(await agents.position(owner.address)).toEqual({ collateral: 0, liabilities: 0, healthFactor: null });
  }, 180_000);

  it('with the notifications service stopped, it protects from the ledger (degraded) and still closes', async () => {
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n, usdcForKey: 1n * UNIT });
    const agent = await agents.start(owner, { WATCHED_POOLS: '', POLL_INTERVAL_MS: '2000' });
    await agents.until(agent, (s) => s.mode === 'service' && s.positions.length === 1, 'service mode', 90_000);
    await stack.app('notifications').stop();
    await agents.until(agent, (s) => s.mode === 'degraded' && s.positions.length === 1, 'degraded mode');
    agents.setXlmPrice(CRITICAL_XLM_PRICE);
    const closed = await agents.until(agent, (s) => confirmed(s) !== undefined, 'a confirmed close');
    expect(confirmed(closed)?.riskSnapshot.source).toBe('ledger');
    expect(closed.refusals).toEqual([]);
    expect(await agents.position(owner.address)).toEqual({ collateral: 0, liabilities: 0, healthFactor: null });
  }, 180_000);
});
