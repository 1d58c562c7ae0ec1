/**
 * The monitor end to end, through the gateway with an API key, on real processes: a wallet registers messenger,
 * channelhook and email; the sandbox oracle's XLM price drops step by step; after each change the three stand-ins
 * receive one alert naming the level and the health factor, nothing more inside the cooldown at the same level, the
 * escalation at once; `/risk` shows the health factor the sandbox page shows, and moving the oracle to the
 * liquidation price `/risk` reports gives a health factor of 1.0. How fast an alert follows a price change is
 * measured in tools/bench (`notifications-monitor`), not here.
 */
import { type Stack, startStack } from '@rp/dev';
import { fixedToNumber } from '@rp/ledger';
import { UNIT } from '@rp/sandbox';
import { type MetricSample, metricsUntil, reading, scrape, total } from './support/app-metrics';
import { notificationsCalls } from './support/notification-channels';
import { privateRedis } from './support/private-redis';

/** A ledger every two seconds; the monitor starts a round for each new one. */
const LEDGER_MS = 2000;
/** The notifications default `RMS_ROUND_TIMEOUT_MS`: the longest a round may run. */
const ROUND_TIMEOUT_MS = 30_000;
/** The longest from one round to the next: a ledger close, then a round that runs to its timeout. */
const ROUND_BOUND_MS = LEDGER_MS + ROUND_TIMEOUT_MS;
const NOTIFICATIONS = '/rms/notifications';
const MONITOR_BOT_TOKEN = `556000:${'M'.repeat(35)}`;

/** What the notifications process's own metrics say about the monitor and the delivery queue. */
interface MonitorProgress {
  /** Rounds completed (every batch of the round done). */
  rounds: number;
  walletsWatched: number;
  /** Positions read from the ledger (not re-priced from the cache). */
  positionsRead: number;
  /** Alerts the monitor handed to the intake, by level (the intake's cooldown decides what is sent). */
  alerts: Record<string, number>;
  /** Delivery jobs waiting, delayed or running. */
  queueDepth: number;
}

function monitorProgress(samples: MetricSample[]): MonitorProgress {
  const alerts: Record<string, number> = {};
  for (const sample of samples.filter((s) => s.name === 'rms_monitor_alerts_total')) {
    alerts[sample.labels['level']] = sample.value;
  }
  return {
    rounds: total(samples, 'rms_monitor_round_duration_seconds_count', { outcome: 'completed' }),
    walletsWatched: reading(samples, 'rms_monitor_wallets_watched'),
    positionsRead: total(samples, 'rms_monitor_positions_total', { source: 'ledger' }),
    alerts,
    queueDepth: reading(samples, 'notifications_queue_depth'),
  };
}

describe('risk monitoring through the gateway', () => {
  let s: Stack;
  let redis: Awaited<ReturnType<typeof privateRedis>>;

  beforeAll(async () => {
    // A Redis of its own: rate limits, queues and cooldowns of suites running beside it do not meet it.
    redis = await privateRedis();
    s = await startStack({
      apps: ['subscription', 'notifications', 'gateway'],
      roles: { notifications: ['all'] },
      ledgerIntervalMs: LEDGER_MS,
      redisUrl: redis.url,
      env: {
        notifications: {
          RMS_LEDGER_POLL_MS: '100',
          MESSENGER_BOT_TOKEN: MONITOR_BOT_TOKEN,
          EMAIL_FROM: 'alerts@example.com',
        },
      },
    });
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    await redis?.kill();
  });

  const nextLedgerClose = () => new Promise<void>((resolve) => s.sandbox.ledger.once('close', () => resolve()));

  /** Sets the XLM price with the sandbox's control API; resolves once the next ledger closed. */
  async function priceXlm(price: bigint): Promise<void> {
    const set = await fetch(`${s.sandbox.url}/control/oracles/${s.scenario.oracle}/prices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ asset: s.scenario.xlm, price: price.toString() }),
    });
    expect(set.status).toBe(200);
    await nextLedgerClose();
  }

  /** The wallet's health factor as the sandbox page shows it (its JSON: `GET /control/state`). */
  async function pageHealthFactor(wallet: string): Promise<number | null> {
    const state = (await (await fetch(`${s.sandbox.url}/control/state`)).json()) as {
      positions: { account: string; pool: string; healthFactor: string | null }[];
    };
    const found = state.positions.find((p) => p.account === wallet && p.pool === s.scenario.pool);
    return found?.healthFactor ? fixedToNumber(BigInt(found.healthFactor), 7) : null;
  }

  /**
   * Waits until two more rounds of the monitor completed than `since` counted, so that one of them began after the
   * ledger the test waited for had closed: the position has been valued at its new price, and whatever alert that
   * raised has been through the intake (a round waits for its batches, a batch for the intake). The deadline gives
   * each round the longest it may take.
   */
  function twoRoundsAfter(since: MonitorProgress): Promise<MonitorProgress> {
    const rounds = (now: MonitorProgress) => now.rounds >= since.rounds + 2;
    return metricsUntil(s.app('notifications'), monitorProgress, rounds, 'two more monitor rounds', 2 * ROUND_BOUND_MS);
  }

  /** Waits until no delivery job is waiting, delayed or running: anything the intake queued has been sent. */
  function queueDrained(): Promise<MonitorProgress> {
    const empty = (now: MonitorProgress) => now.queueDepth === 0;
    return metricsUntil(s.app('notifications'), monitorProgress, empty, 'an empty delivery queue', 60_000);
  }

  const progress = async () => monitorProgress(await scrape(s.app('notifications')));

  it('alerts the three channels at each new level, honours the cooldown, escalates at once', async () => {
    const { apiKey: key } = await s.api.partnerKey();
    // 10 000 XLM at $0.30 x 0.75 against 1 500 USDC / 0.95: health factor 1.425 (medium).
    const wallet = s.borrower({ xlm: 10_000n * UNIT, usdc: 1_500n * UNIT }).address;
    const chatId = String(80_000_000 + Math.floor(Math.random() * 1_000_000));
    const hookUrl = notificationsCalls(s).hookUrl();
    const hook = { url: hookUrl, path: new URL(hookUrl).pathname.replace(/^\/hooks\//, '') };
    const email = `risk-${chatId}@example.com`;
    const registrations = [
      await s.api.call('POST', `${NOTIFICATIONS}/messenger`, {
        key,
        body: { walletAddress: wallet, messengerChatId: chatId, minRiskLevel: 'alert' },
      }),
      await s.api.call('POST', `${NOTIFICATIONS}/channelhook`, {
        key,
        body: { walletAddress: wallet, channelWebhook: hook.url, minRiskLevel: 'high' },
      }),
      await s.api.call('POST', `${NOTIFICATIONS}/email`, {
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
    /** Waits until every destination has `count` messages (the deadline only bounds a failure). */
    async function eachReceived(count: number) {
      const until = Date.now() + 2 * ROUND_BOUND_MS + 60_000;
      while (received().some((list) => list.length < count) && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received();
    }

    // The monitor watches it from the next round on; medium is below the channels' minimum: no alert is even raised.
    const registered = await progress();
    const watched = await twoRoundsAfter(registered);
    expect(watched.walletsWatched).toBe(1);
    expect(watched.positionsRead).toBeGreaterThan(registered.positionsRead);
    expect(watched.alerts).toEqual({});
    await queueDrained();
    expect(received().map((list) => list.length)).toEqual([0, 0, 0]);

    // $0.26: health factor 1.235, high.
    await priceXlm(2_600_000n);
    const first = await eachReceived(1);
    const pageHigh = await pageHealthFactor(wallet);
    for (const list of first) {
      expect(list).toHaveLength(1);
      expect(list[0].text).toContain(`HIGH risk: health factor ${pageHigh?.toFixed(4)}`);
    }

    // $0.25: health factor 1.1875, still high, inside the 10-minute cooldown: raised again, held back, not sent.
    await priceXlm(2_500_000n);
    const beforeHeld = await progress();
    const held = await twoRoundsAfter(beforeHeld);
    expect(held.alerts['high']).toBeGreaterThan(beforeHeld.alerts['high'] ?? 0);
    await queueDrained();
    expect(received().map((list) => list.length)).toEqual([1, 1, 1]);

    // $0.22: health factor 1.045, critical: an escalation goes out at once, inside the high cooldown.
    await priceXlm(2_200_000n);
    const second = await eachReceived(2);
    const pageCritical = await pageHealthFactor(wallet);
    for (const list of second) {
      expect(list).toHaveLength(2);
      expect(list[1].text).toContain(`CRITICAL risk: health factor ${pageCritical?.toFixed(4)}`);
    }

    // $0.21: still critical, inside its 2-minute cooldown: raised again, held back, nothing more sent.
    await priceXlm(2_100_000n);
    const beforeCritical = await progress();
    const heldCritical = await twoRoundsAfter(beforeCritical);
    expect(heldCritical.alerts['critical']).toBeGreaterThan(beforeCritical.alerts['critical'] ?? 0);
    await queueDrained();
    expect(received().map((list) => list.length)).toEqual([2, 2, 2]);

    // /risk shows the health factor of the sandbox page (both read within one second: reserves accrue by the second).
    let risk: number | undefined;
    let page: number | null = null;
    for (let attempt = 0; attempt < 3 && (risk === undefined || risk !== page); attempt += 1) {
      const answer = await s.api.call('GET', `/rms/risk/${wallet}`, { key });
      expect(answer.status).toBe(200);
      expect(answer.body.positions).toHaveLength(1);
      expect(answer.body.positions[0]).toMatchObject({ riskLevel: 'critical', recommendedAction: 'LIQUIDATE' });
      risk = answer.body.positions[0].healthFactor;
      page = await pageHealthFactor(wallet);
    }
    expect(risk).toBe(page);
  }, 600_000);

  it('moving the oracle to the liquidation price /risk reports brings the health factor to 1.0', async () => {
    const { apiKey: key } = await s.api.partnerKey();
    await priceXlm(3_000_000n);
    // 10 000 XLM at $0.30 x 0.75 against 2 000 USDC / 0.95: health factor 1.06875, liquidated near XLM $0.2807.
    const wallet = s.borrower({ xlm: 10_000n * UNIT, usdc: 2_000n * UNIT }).address;
    const before = await s.api.call('GET', `/rms/risk/${wallet}`, { key });
    expect(before.status).toBe(200);
    const price = before.body.positions[0].liquidationPrices[s.scenario.xlm] as string;
    expect(Number(price)).toBeCloseTo(0.2807, 3);
    // The string has exactly the oracle's decimals: without its point it is the oracle's integer price.
    await priceXlm(BigInt(price.replace('.', '')));
    const after = await s.api.call('GET', `/rms/risk/${wallet}`, { key });
    expect(after.status).toBe(200);
    expect(Math.abs(after.body.positions[0].healthFactor - 1)).toBeLessThanOrEqual(0.001);
  }, 120_000);

  it("the account's risk configuration sets the levels /risk answers, and no other account sees it", async () => {
    const { apiKey: key } = await s.api.partnerKey();
    const { apiKey: other } = await s.api.partnerKey();
    await priceXlm(3_000_000n);
    // 10 000 XLM at $0.30 x 0.75 against 1 500 USDC / 0.95: health factor 1.425, medium by the defaults.
    const wallet = s.borrower({ xlm: 10_000n * UNIT, usdc: 1_500n * UNIT }).address;
    const before = await s.api.call('GET', `/rms/risk/${wallet}`, { key });
    expect(before.body.levels).toEqual({ medium: 1.5, high: 1.25, critical: 1.1 });
    expect(before.body.positions[0].riskLevel).toBe('medium');

    const put = await s.api.call('PUT', `/rms/config/${wallet}`, {
      key,
      body: { levels: { medium: 1.8, high: 1.6, critical: 1.45 } },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ levels: { medium: 1.8, high: 1.6, critical: 1.45 }, depegBps: 200 });
    const after = await s.api.call('GET', `/rms/risk/${wallet}`, { key });
    expect(after.body.levels).toEqual({ medium: 1.8, high: 1.6, critical: 1.45 });
    expect(after.body.positions[0]).toMatchObject({ riskLevel: 'critical', recommendedAction: 'LIQUIDATE' });

    // Another account: 404 on the configuration, the defaults on /risk.
    expect((await s.api.call('GET', `/rms/config/${wallet}`, { key: other })).status).toBe(404);
    expect((await s.api.call('GET', `/rms/risk/${wallet}`, { key: other })).body.positions[0].riskLevel).toBe('medium');
    const bad = await s.api.call('PUT', `/rms/config/${wallet}`, { key, body: { levels: { critical: 0.9 } } });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([expect.objectContaining({ field: 'levels.critical' })]);
  }, 120_000);
});
