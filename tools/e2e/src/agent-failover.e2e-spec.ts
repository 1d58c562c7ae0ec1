/**
 * The agent when things go wrong: a second instance for the same wallet stands by and takes over when the first
 * dies (the lock as a database lease, no Redis); without a key (no USDC to buy one) and without the risk service,
 * it protects the wallet from the ledger alone.
 */
import { AppProcess, freePort, type Stack, startStack } from '@rp/dev';
import { UNIT } from '@rp/sandbox';
import { type AgentCalls, type AgentStatus, agentCalls, agentStack } from './support/agents';

const CRITICAL_XLM_PRICE = 2_800_000n;
const DEMO_XLM_PRICE = 3_000_000n;
/** The wallet lock's lease and the poll interval the stack's agents run with. */
const LEASE_MS = 3000;
const POLL_MS = 1000;
const confirmed = (s: AgentStatus) => s.recentCloses.find((close) => close.outcome === 'confirmed');

describe('the risk agent under failures', () => {
  let stack: Stack;
  let agents: AgentCalls;

  beforeAll(async () => {
    stack = await startStack(agentStack({ redisDb: 12 }));
    agents = agentCalls(stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  });

  afterEach(() => agents.setXlmPrice(DEMO_XLM_PRICE));

  it('two agents for one wallet: one acts, the other stands by and takes over when the first is killed', async () => {
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n, usdcForKey: 1n * UNIT });
    const shared = {
      DATABASE_URL: stack.databaseUrl('agent'),
      REDIS_URL: '',
      LOCK_LEASE_MS: String(LEASE_MS),
      POLL_INTERVAL_MS: String(POLL_MS),
    };
    const first = await agents.start(owner, shared);
    await agents.until(first, (s) => s.role === 'active', 'the first agent active');
    const second = await agents.start(owner, shared);
    const standing = await agents.until(second, (s) => s.role === 'standby', 'the second agent standing by');
    expect(standing.lastPollAt).toBeNull();
    expect((await agents.status(first)).role).toBe('active');

    await first.kill();
    // The takeover itself is the event: the second agent active and polling. It is due once the dead holder's lease
    // has run out, at its next heartbeat, plus one poll; the deadline gives a busy machine ten times that.
    const takeover = await agents.until(
      second,
      (s) => s.role === 'active' && s.lastPollAt !== null,
      'the second agent taking over',
      10 * (LEASE_MS + LEASE_MS / 3 + POLL_MS),
    );
    expect(takeover.wallet.address).toBe(owner.address);

    agents.setXlmPrice(CRITICAL_XLM_PRICE);
    const closed = await agents.until(second, (s) => confirmed(s) !== undefined, 'a close by the second agent');
    expect((await stack.ledger.getTransaction(confirmed(closed)?.txHash ?? '')).status).toBe('SUCCESS');
    expect(await agents.position(owner.address)).toEqual({ collateral: 0, liabilities: 0, healthFactor: null });
  }, 180_000);

  it('degraded: no USDC for a key and no risk service, it still closes the position from the ledger', async () => {
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n });
    const agent = await agents.start(owner);
    const degraded = await agents.until(
      agent,
      (s) => s.mode === 'degraded' && s.subscription.error !== undefined && s.positions.length === 1,
      'degraded mode with the subscription problem shown',
    );
    expect(degraded.subscription).toMatchObject({ active: false });
    expect(degraded.subscription.error).toContain('not enough USDC');
    expect(agent.lines.filter((line) => line.includes('not enough USDC'))).toHaveLength(1);

    agents.setXlmPrice(CRITICAL_XLM_PRICE);
    const closed = await agents.until(agent, (s) => confirmed(s) !== undefined, 'a close built by the agent itself');
    expect(confirmed(closed)?.riskSnapshot.source).toBe('ledger');
    expect((await stack.ledger.getTransaction(confirmed(closed)?.txHash ?? '')).status).toBe('SUCCESS');
    expect(await agents.position(owner.address)).toEqual({ collateral: 0, liabilities: 0, healthFactor: null });
  }, 180_000);

  it('low fee balance: a warning in /status and one log line when it starts and one when it ends', async () => {
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, usdcForKey: 1n * UNIT });
    // The wallet holds 100 XLM: below a 150 XLM threshold.
    const agent = await agents.start(owner, { LOW_FEE_BALANCE_XLM: '150' });
    const low = await agents.until(agent, (s) => s.wallet.lowFeeBalance, 'a low fee balance');
    expect(Number(low.wallet.nativeBalance)).toBeLessThan(150);
    stack.sandbox.control.setup.fund(owner.address, 100n * UNIT);
    await agents.until(agent, (s) => !s.wallet.lowFeeBalance, 'the fee balance topped up');
    const lines = (text: string) => agent.lines.filter((line) => line.includes(text));
    expect(lines('low fee balance')).toHaveLength(1);
    expect(lines('fee balance no longer low')).toHaveLength(1);
  }, 120_000);

  it('a wrong setting stops it with one line and status 78', async () => {
    const agent = new AppProcess({
      app: 'agent',
      port: await freePort(),
      env: { LEDGER_MNEMONIC: 'not a mnemonic', CONTRACT_RPC_URL: 'ftp://x', CLOSE_STRATEGY: 'panic' },
    });
    expect(await agent.whenExited()).toBe(78);
    expect(agent.lines.filter((line) => line.trim() !== '')).toEqual([
      expect.stringMatching(/^agent: invalid configuration: LEDGER_MNEMONIC .*\(value hidden\).*CONTRACT_RPC_URL.*CLOSE_STRATEGY/),
    ]);
  }, 60_000);
});
