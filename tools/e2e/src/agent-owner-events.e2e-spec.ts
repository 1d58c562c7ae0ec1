/**
 * The owner is told (issue 17, part 3), end to end: a real agent process with its owner's channels set
 * (`NOTIFY_TELEGRAM_CHAT_ID`, `NOTIFY_EMAIL`, `NOTIFY_WEBHOOK_URL`) buys its key from the real service, registers
 * those channels as its wallet's notification configurations under that key, and its events reach the sandbox's
 * Telegram, SMTP and webhook stand-ins through the notifications service, once each: the renewed key, a real close
 * sent and confirmed, and (part 4, crash safety) a close whose agent was SIGKILLed after `sendTransaction` and before
 * it learnt the outcome, followed to `confirmed` by the next start, never sent twice, told once. The webhook URL, a
 * secret, never appears in the agent's log.
 */
import { randomBytes } from 'node:crypto';
import { type AppProcess, type Stack, startStack } from '@rp/dev';
import { UNIT } from '@rp/sandbox';
import { Networks, TransactionBuilder } from '@stellar/stellar-sdk';
import { type AgentCalls, type AgentStatus, type AgentWallet, agentCalls, agentStack } from './support/agents';

/** $0.29 (-3.3 %): critical, and within the 5 % a presigned close absorbs. */
const SLIGHTLY_CRITICAL_XLM_PRICE = 2_900_000n;
const DEMO_XLM_PRICE = 3_000_000n;
const confirmed = (s: AgentStatus) => s.recentCloses.find((close) => close.outcome === 'confirmed');

/** The owner's three channels, fresh per test, and how to read what each stand-in received. */
function ownerChannels(stack: Stack) {
  const chat = String(600_000_000 + Math.floor(Math.random() * 1_000_000));
  const email = `owner-${chat}@example.com`;
  const hookId = randomBytes(6).toString('hex');
  const hookPath = `discord/${BigInt(`0x${hookId}`)}/${hookId}secret`;
  const destinations = [
    { channel: 'telegram', destination: chat },
    { channel: 'email', destination: email },
    { channel: 'webhook', destination: hookPath },
  ] as const;
  const received = (filter: (typeof destinations)[number], title: string) =>
    stack.sandbox.channels.log.list({ ...filter, outcome: 'delivered' }).filter((message) => message.text.includes(title));
  return {
    hookSecret: `${hookId}secret`,
    env: { NOTIFY_TELEGRAM_CHAT_ID: chat, NOTIFY_EMAIL: email, NOTIFY_WEBHOOK_URL: `${stack.sandbox.url}/hooks/${hookPath}` },
    destinations,
    received,
    /** Waits until every channel received a message with `title` (a minute at most), and returns the first of each. */
    async each(title: string) {
      const deadline = Date.now() + 60_000;
      while (destinations.some((filter) => received(filter, title).length === 0) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return destinations.map((filter) => received(filter, title)[0]);
    },
  };
}

const SENT = 'Your risk agent sent a close';
const CONFIRMED = 'close is confirmed on the ledger';
const TOOK_OVER = 'A standby risk agent took over your wallet';
const FEE_LOW = 'fee balance is low';

describe("the agent telling its wallet's owner", () => {
  let stack: Stack;
  let agents: AgentCalls;

  beforeAll(async () => {
    stack = await startStack(agentStack({ redisDb: 14, notifications: true }));
    agents = agentCalls(stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  });

  afterEach(() => agents.setXlmPrice(DEMO_XLM_PRICE));

  it('registers the owner channels under its key and delivers its renewed key to each, once', async () => {
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, usdcForKey: 1n * UNIT });
    const channels = ownerChannels(stack);
    const agent = await agents.start(owner, channels.env);
    await agents.until(agent, (s) => s.subscription.active, 'a key bought');

    for (const message of await channels.each('API key was renewed')) {
      expect(message?.text).toContain(owner.address.slice(0, 6));
      expect(message?.text).toMatch(/Valid until/);
    }
    expect(await agents.metrics(agent)).toContain(
      'agent_owner_events_total{type="subscription_renewed",outcome="delivered"} 1',
    );
    for (const filter of channels.destinations) expect(channels.received(filter, 'API key was renewed')).toHaveLength(1);
    expect(agent.lines.join('\n')).not.toContain(channels.hookSecret);
  }, 180_000);

  it('tells the owner a real close was sent and confirmed: pool, health factor before and after, transaction', async () => {
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n, usdcForKey: 1n * UNIT });
    const channels = ownerChannels(stack);
    const agent = await agents.start(owner, { ...channels.env, SLIPPAGE: '500' });
    await agents.until(agent, (s) => s.presigned.entries === 1, 'a presigned close', 90_000);
    agents.setXlmPrice(SLIGHTLY_CRITICAL_XLM_PRICE);
    const closed = await agents.until(agent, (s) => confirmed(s) !== undefined, 'a confirmed close');
    const close = confirmed(closed);
    const txHash = close?.txHash ?? '';
    expect((await stack.ledger.getTransaction(txHash)).status).toBe('SUCCESS');
    const before = (close?.riskSnapshot.positions[0] as { healthFactor: number }).healthFactor;

    for (const message of await channels.each(SENT)) {
      expect(message?.text).toContain(txHash);
      expect(message?.text).toContain(`${stack.scenario.pool.slice(0, 6)}`);
      expect(message?.text).toContain(before.toFixed(4));
    }
    for (const message of await channels.each(CONFIRMED)) {
      expect(message?.text).toContain(txHash);
      expect(message?.text).toContain(before.toFixed(4));
      // The position is gone from the ledger: no debt, no health factor.
      expect(message?.text).toMatch(/Health factor after\W+none \(no debt\)/);
    }
    const metrics = await agents.metrics(agent);
    expect(metrics).toContain('agent_owner_events_total{type="close_sent",outcome="delivered"} 1');
    expect(metrics).toContain('agent_owner_events_total{type="close_confirmed",outcome="delivered"} 1');
    expect(metrics).not.toContain('type="close_failed"');
    expect(agent.lines.join('\n')).not.toContain(channels.hookSecret);
  }, 180_000);

  it('SIGKILLed after sendTransaction: the next start follows the close to confirmed, never sends it twice, tells once', async () => {
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n, usdcForKey: 1n * UNIT });
    const channels = ownerChannels(stack);
    const env = { ...channels.env, SLIPPAGE: '500', DATABASE_URL: stack.databaseUrl('agent') };
    const first = await agents.start(owner, env);
    await agents.until(first, (s) => s.presigned.entries === 1, 'a presigned close', 90_000);

    // Every transaction of the wallet the ledger is handed from here on, and every one it applies.
    const handed = new Set<string>();
    const applied: string[] = [];
    const stopCounting = countWalletTransactions(stack, owner, handed, applied);
    // The agent cannot learn the outcome: every getTransaction fails (the close itself goes through).
    stack.sandbox.faults.add({ method: 'getTransaction', kind: 'rpc-error', count: Number.POSITIVE_INFINITY });
    let second: AppProcess | undefined;
    try {
      agents.setXlmPrice(SLIGHTLY_CRITICAL_XLM_PRICE);
      await until(() => first.lines.some((line) => line.includes('"close sent"')), 'the close sent', 60_000);
      const pending = await agents.status(first);
      await until(() => applied.length > 0, 'the close applied by the ledger', 30_000);
      expect(await first.kill()).not.toBe(0);
      expect(pending.recentCloses).toEqual([expect.objectContaining({ outcome: 'submitted' })]);
      const txHash = pending.recentCloses[0]?.txHash ?? '';
      expect(applied).toEqual([txHash]);
      stack.sandbox.faults.clear();

      // The same agent, same settings and database, in a new process.
      second = first.respawn();
      await second.waitReady(60_000);
      const settled = await agents.until(second, (s) => confirmed(s) !== undefined, 'the earlier close settled');
      expect(settled.recentCloses).toEqual([expect.objectContaining({ txHash, outcome: 'confirmed' })]);
      expect(second.lines.some((line) => line.includes('earlier close settled'))).toBe(true);
      expect(await agents.position(owner.address)).toEqual({ collateral: 0, liabilities: 0, healthFactor: null });

      for (const message of await channels.each(CONFIRMED)) expect(message?.text).toContain(txHash);
      // Some polls later, still one close on the ledger, one handed to it, one confirmation told per channel.
      const polls = async () => Number(/agent_polls_total\{mode="\w+"\} (\d+)/.exec(await agents.metrics(second as AppProcess))?.[1] ?? 0);
      const seen = await polls();
      await until(async () => (await polls()) >= seen + 5, 'five more polls', 60_000);
      expect(applied).toEqual([txHash]);
      expect([...handed]).toEqual([txHash]);
      for (const filter of channels.destinations) expect(channels.received(filter, CONFIRMED)).toHaveLength(1);
      expect(await agents.metrics(second)).toContain('agent_owner_events_total{type="close_confirmed",outcome="delivered"} 1');
    } finally {
      stopCounting();
      stack.sandbox.faults.clear();
      await second?.stop();
    }
  }, 240_000);

  it('tells the owner of a low fee balance once per fall, not at every poll', async () => {
    // The wallet holds 100 XLM: below a 150 XLM threshold from the first poll on.
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, usdcForKey: 1n * UNIT });
    const channels = ownerChannels(stack);
    const agent = await agents.start(owner, { ...channels.env, LOW_FEE_BALANCE_XLM: '150' });
    await agents.until(agent, (s) => s.wallet.lowFeeBalance && s.subscription.active, 'a low fee balance and a key');
    for (const message of await channels.each(FEE_LOW)) expect(message?.text).toMatch(/XLM balance\W+\d+\.\d+/);
    const polls = async () => Number(/agent_polls_total\{mode="\w+"\} (\d+)/.exec(await agents.metrics(agent))?.[1] ?? 0);
    const seen = await polls();
    await until(async () => (await polls()) >= seen + 5, 'five more polls', 60_000);
    // The agent emitted it once (the service's cooldown would hide a repeat from the channels, not from this count).
    expect(await agents.metrics(agent)).toContain('agent_owner_events_total{type="fee_balance_low",outcome="delivered"} 1\n');
    for (const filter of channels.destinations) expect(channels.received(filter, FEE_LOW)).toHaveLength(1);
  }, 180_000);

  it('tells the owner once when a standby instance takes the wallet over from one that died', async () => {
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, usdcForKey: 1n * UNIT });
    const channels = ownerChannels(stack);
    const shared = { ...channels.env, DATABASE_URL: stack.databaseUrl('agent'), REDIS_URL: '', LOCK_LEASE_MS: '3000' };
    const first = await agents.start(owner, shared);
    await agents.until(first, (s) => s.role === 'active' && s.subscription.active, 'the first agent active with a key');
    const second = await agents.start(owner, shared);
    await agents.until(second, (s) => s.role === 'standby', 'the second agent standing by');
    await first.kill();
    await agents.until(second, (s) => s.role === 'active', 'the second agent taking over', 60_000);
    for (const message of await channels.each(TOOK_OVER)) expect(message?.text).toContain(owner.address.slice(0, 6));
    expect(await agents.metrics(second)).toContain(
      'agent_owner_events_total{type="standby_took_over",outcome="delivered"} 1',
    );
    for (const filter of channels.destinations) expect(channels.received(filter, TOOK_OVER)).toHaveLength(1);
  }, 180_000);
});

/** Watches the sandbox ledger: hashes of the wallet's transactions handed to it (`sendTransaction`) and applied. */
function countWalletTransactions(stack: Stack, owner: AgentWallet, handed: Set<string>, applied: string[]): () => void {
  const ledger = stack.sandbox.ledger;
  const sourceOf = (envelope: string) => {
    const tx = TransactionBuilder.fromXDR(envelope, Networks.TESTNET);
    return 'innerTransaction' in tx ? tx.innerTransaction.source : tx.source;
  };
  const submit = ledger.submit.bind(ledger);
  ledger.submit = (envelope: string) => {
    const outcome = submit(envelope);
    if (sourceOf(envelope) === owner.address) handed.add(outcome.hash);
    return outcome;
  };
  const onClose = (closed: { readonly transactions: readonly string[] }) => {
    for (const hash of closed.transactions) {
      if (ledger.transaction(hash)?.source === owner.address) applied.push(hash);
    }
  };
  ledger.on('close', onClose);
  return () => {
    ledger.submit = submit;
    ledger.off('close', onClose);
  };
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
