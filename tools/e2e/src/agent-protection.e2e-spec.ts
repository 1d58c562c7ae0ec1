/**
 * The risk agent as a real process against the sandbox and the real subscription, txb and gateway processes: it
 * buys its own key with x402 (and renews it), keeps a presigned close of an endangered position, sends it when the
 * price drops to critical, follows it to the ledger, and never closes twice inside the cooldown.
 */
import { type Stack, startStack } from '@rp/dev';
import { UNIT } from '@rp/sandbox';
import { type AgentCalls, type AgentStatus, agentCalls, agentStack } from './support/agents';

const CRITICAL_XLM_PRICE = 2_800_000n; // $0.28: the endangered position (health factor about 1.12) falls to about 1.05
/** $0.29 (-3.3 %): critical (about 1.09), and within the 5 % a presigned flash-loan close can absorb. */
const SLIGHTLY_CRITICAL_XLM_PRICE = 2_900_000n;
const confirmed = (s: AgentStatus) => s.recentCloses.find((close) => close.outcome === 'confirmed');
const DEMO_XLM_PRICE = 3_000_000n;

describe('the risk agent', () => {
  let stack: Stack;
  let agents: AgentCalls;

  beforeAll(async () => {
    // One day of subscription: inside the three-day renewal window at once, so every check renews.
    stack = await startStack(agentStack({ redisDb: 11, subscriptionEnv: { X402_SUBSCRIPTION_DAYS: '1' } }));
    agents = agentCalls(stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  });

  afterEach(() => agents.setXlmPrice(DEMO_XLM_PRICE));

  it('buys its own key with its wallet, shows it in /status, renews it near expiry, never shows its secrets', async () => {
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, usdcForKey: 1n * UNIT });
    const agent = await agents.start(owner, { SUBSCRIPTION_CHECK_INTERVAL_MS: '3000' });
    const first = await agents.until(agent, (s) => s.subscription.active, 'an active subscription');
    expect(first.subscription).toMatchObject({ active: true, tier: 'standard' });
    const expiry = Date.parse(first.subscription.expiresAt ?? '');
    expect(expiry - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(expiry - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);
    const renewed = await agents.until(
      agent,
      (s) => Date.parse(s.subscription.expiresAt ?? '') > expiry,
      'a renewed subscription',
    );
    expect(renewed.subscription.active).toBe(true);
    const bought = agent.lines.filter((line) => line.includes('API key bought'));
    expect(bought.length).toBeGreaterThanOrEqual(2);
    expect(first.wallet).toMatchObject({ address: owner.address, lowFeeBalance: false });
    // Neither the mnemonic nor the key reaches a log line or the status.
    const words = owner.mnemonic.split(' ').slice(0, 4).join(' ');
    expect(agent.lines.some((line) => line.includes(words) || line.includes('rp_test_'))).toBe(false);
    expect(JSON.stringify(renewed)).not.toContain('rp_test_');
  }, 120_000);

  it('sends its presigned close when the price drops to critical; the ledger confirms; nothing twice in the cooldown', async () => {
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n, usdcForKey: 1n * UNIT });
    // 5 % slippage (the spec's figure for volatile assets): the presigned close survives the drop below.
    const agent = await agents.start(owner, { SLIPPAGE: '500' });
    const ready = await agents.until(agent, (s) => s.presigned.entries === 1, 'a presigned close', 90_000);
    expect(ready.positions).toEqual([expect.objectContaining({ poolAddress: stack.scenario.pool, riskLevel: 'high' })]);
    expect(ready.recentCloses).toEqual([]);

    agents.setXlmPrice(SLIGHTLY_CRITICAL_XLM_PRICE);
    const closed = await agents.until(agent, (s) => confirmed(s) !== undefined, 'a confirmed close');
    expect(closed.recentCloses).toHaveLength(1);
    const close = closed.recentCloses[0];
    expect(close).toMatchObject({ wallet: owner.address, poolAddress: stack.scenario.pool, outcome: 'confirmed' });
    expect(close.settledAt).not.toBeNull();
    expect(close.riskSnapshot.positions).toEqual([expect.objectContaining({ riskLevel: 'critical' })]);
    expect(Object.keys(close.riskSnapshot.prices)).toContain(stack.scenario.xlm);
    expect((await stack.ledger.getTransaction(close.txHash ?? '')).status).toBe('SUCCESS');
    expect(await agents.position(owner.address)).toEqual({ collateral: 0, liabilities: 0, healthFactor: null });
    expect(await agents.metrics(agent)).toMatch(/agent_sends_total\{path="presigned"\} 1\n/);

    // A new position of the same wallet in the same pool, critical at once: inside the cooldown it is left alone.
    stack.sandbox.control.setup.openPosition(stack.scenario.pool, {
      user: owner.address,
      supplyCollateral: [{ asset: stack.scenario.xlm, amount: 1_000n * UNIT }],
      borrow: [{ asset: stack.scenario.usdc, amount: 190n * UNIT }], // health factor about 1.05 at $0.28
    });
    const polls = async () => Number(/agent_polls_total\{mode="\w+"\} (\d+)/.exec(await agents.metrics(agent))?.[1] ?? 0);
    const seen = await polls();
    await agents.until(agent, (s) => s.positions[0]?.riskLevel === 'critical', 'the new critical position');
    while ((await polls()) < seen + 5) await new Promise((resolve) => setTimeout(resolve, 250));
    const after = await agents.status(agent);
    expect(after.recentCloses).toEqual(closed.recentCloses);
    expect((await agents.position(owner.address)).liabilities).toBe(1);
  }, 180_000);

  it('rebuilds, signs and sends when its presigned close went stale, and the ledger confirms that one', async () => {
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n, usdcForKey: 1n * UNIT });
    const agent = await agents.start(owner, { POLL_INTERVAL_MS: '4000' });
    const ready = await agents.until(agent, (s) => s.presigned.entries === 1, 'a presigned close', 90_000);
    // Right after a poll, the wallet spends its next sequence number elsewhere and the price drops: at the next
    // poll the presigned close carries a used sequence number.
    await agents.until(agent, (s) => s.lastPollAt !== ready.lastPollAt, 'the next poll');
    await agents.spendSequence(owner);
    agents.setXlmPrice(CRITICAL_XLM_PRICE);
    const closed = await agents.until(agent, (s) => confirmed(s) !== undefined, 'a confirmed close');
    expect((await stack.ledger.getTransaction(confirmed(closed)?.txHash ?? '')).status).toBe('SUCCESS');
    expect(await agents.position(owner.address)).toEqual({ collateral: 0, liabilities: 0, healthFactor: null });
    const metrics = await agents.metrics(agent);
    expect(metrics).toMatch(/agent_sends_total\{path="rebuilt"\} \d+\n/);
    expect(metrics).not.toMatch(/agent_sends_total\{path="presigned"\}/);
  }, 180_000);

  it('deleverage: a partial unwind brings the health factor back to within 1 % of the target', async () => {
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n, usdcForKey: 1n * UNIT });
    const agent = await agents.start(owner, { CLOSE_STRATEGY: 'deleverage', TARGET_HEALTH_FACTOR: '1.4' });
    await agents.until(agent, (s) => s.presigned.entries === 1, 'a presigned close', 90_000);
    agents.setXlmPrice(CRITICAL_XLM_PRICE);
    await agents.until(agent, (s) => confirmed(s) !== undefined, 'a confirmed deleverage');
    const { healthFactor, liabilities } = await agents.position(owner.address);
    expect(liabilities).toBe(1);
    expect(Math.abs((healthFactor ?? 0) / 1.4 - 1)).toBeLessThan(0.01);
  }, 180_000);
});
