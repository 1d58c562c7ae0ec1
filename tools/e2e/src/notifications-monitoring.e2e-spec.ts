/**
 * The monitor end to end, through the gateway with an API key, on real processes: a wallet registers messenger,
 * channelhook and email; the sandbox oracle's XLM price drops step by step; within one ledger close of each change
 * the three stand-ins receive one alert naming the level and the health factor, nothing more inside the cooldown
 * at the same level, the escalation at once; `/risk` shows the health factor the sandbox page shows.
 */
import { fixedToNumber } from '@rp/ledger';
import { UNIT } from '@rp/sandbox';
import { type MonitoringStack, startMonitoringStack } from './support/monitoring-stack';

/** A ledger every two seconds: "within one ledger close" is a bound of 2 s on every alert. */
const LEDGER_MS = 2000;
const NOTIFICATIONS = '/rms/notifications';

describe('risk monitoring through the gateway', () => {
  let s: MonitoringStack;

  beforeAll(async () => {
    s = await startMonitoringStack(LEDGER_MS);
  }, 180_000);
  afterAll(() => s?.close());

  const nextLedgerClose = () =>
    new Promise<number>((resolve) => s.sandbox.ledger.once('close', () => resolve(Date.now())));

  /** Sets the XLM price with the sandbox's control API; resolves with when the next ledger closed. */
  async function priceXlm(price: bigint): Promise<number> {
    const set = await fetch(`${s.sandbox.url}/control/oracles/${s.scenario.oracle}/prices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ asset: s.scenario.xlm, price: price.toString() }),
    });
    expect(set.status).toBe(200);
    return nextLedgerClose();
  }

  /** The wallet's health factor as the sandbox page shows it (its JSON: `GET /control/state`). */
  async function pageHealthFactor(wallet: string): Promise<number | null> {
    const state = (await (await fetch(`${s.sandbox.url}/control/state`)).json()) as {
      positions: { account: string; pool: string; healthFactor: string | null }[];
    };
    const found = state.positions.find((p) => p.account === wallet && p.pool === s.scenario.pool);
    return found?.healthFactor ? fixedToNumber(BigInt(found.healthFactor), 7) : null;
  }

  it('alerts the three channels within one ledger close, honours the cooldown, escalates at once', async () => {
    const key = await s.apiKey();
    // 10 000 XLM at $0.30 x 0.75 against 1 500 USDC / 0.95: health factor 1.425 (medium).
    const wallet = s.borrower(10_000n * UNIT, 1_500n * UNIT);
    const chatId = String(80_000_000 + Math.floor(Math.random() * 1_000_000));
    const hook = s.hook();
    const email = `risk-${chatId}@example.com`;
    const registrations = [
      await s.call('POST', `${NOTIFICATIONS}/messenger`, {
        key,
        body: { walletAddress: wallet, messengerChatId: chatId, minRiskLevel: 'alert' },
      }),
      await s.call('POST', `${NOTIFICATIONS}/channelhook`, {
        key,
        body: { walletAddress: wallet, channelWebhook: hook.url, minRiskLevel: 'high' },
      }),
      await s.call('POST', `${NOTIFICATIONS}/email`, {
        key,
        body: { walletAddress: wallet, email, minRiskLevel: 'high' },
      }),
    ];
    for (const answer of registrations) expect(answer.status).toBe(201);
    const destinations = [
      { channel: 'telegram', destination: chatId },
      { channel: 'webhook', destination: hook.path },
      { channel: 'email', destination: email },
    ] as const;
    const received = () => destinations.map((d) => s.sandbox.channels.log.list({ ...d, outcome: 'delivered' }));
    /** Waits until every destination has `count` messages (60 s at most: a safety bound, not the assertion). */
    async function eachReceived(count: number) {
      const until = Date.now() + 60_000;
      while (received().some((list) => list.length < count) && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received();
    }

    // The monitor watches it from the next round on; medium is below the channels' minimum: nothing is sent.
    await nextLedgerClose();
    await nextLedgerClose();
    expect(received().map((list) => list.length)).toEqual([0, 0, 0]);

    // $0.26: health factor 1.235, high.
    const high = await priceXlm(2_600_000n);
    const first = await eachReceived(1);
    const pageHigh = await pageHealthFactor(wallet);
    for (const [entry] of first) {
      expect(entry.text).toContain(`HIGH risk: health factor ${pageHigh?.toFixed(4)}`);
      expect(Date.parse(entry.receivedAt) - high).toBeLessThanOrEqual(LEDGER_MS);
    }

    // $0.25: health factor 1.1875, still high, inside the 10-minute cooldown: nothing for two ledgers.
    await priceXlm(2_500_000n);
    await nextLedgerClose();
    await nextLedgerClose();
    expect(received().map((list) => list.length)).toEqual([1, 1, 1]);

    // $0.22: health factor 1.045, critical: an escalation goes out at once.
    const critical = await priceXlm(2_200_000n);
    const second = await eachReceived(2);
    const pageCritical = await pageHealthFactor(wallet);
    for (const list of second) {
      expect(list).toHaveLength(2);
      expect(list[1].text).toContain(`CRITICAL risk: health factor ${pageCritical?.toFixed(4)}`);
      expect(Date.parse(list[1].receivedAt) - critical).toBeLessThanOrEqual(LEDGER_MS);
    }

    // $0.21: still critical, inside its 2-minute cooldown: nothing more.
    await priceXlm(2_100_000n);
    await nextLedgerClose();
    await nextLedgerClose();
    expect(received().map((list) => list.length)).toEqual([2, 2, 2]);

    // /risk shows the health factor of the sandbox page (both read within one second: reserves accrue by the second).
    let risk: number | undefined;
    let page: number | null = null;
    for (let attempt = 0; attempt < 3 && (risk === undefined || risk !== page); attempt += 1) {
      const answer = await s.call('GET', `/rms/risk/${wallet}`, { key });
      expect(answer.status).toBe(200);
      expect(answer.body.positions).toHaveLength(1);
      expect(answer.body.positions[0]).toMatchObject({ riskLevel: 'critical', recommendedAction: 'LIQUIDATE' });
      risk = answer.body.positions[0].healthFactor;
      page = await pageHealthFactor(wallet);
    }
    expect(risk).toBe(page);
  }, 180_000);
});
