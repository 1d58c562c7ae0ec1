/**
 * `GET /api/v1/rms/alerts` in-process on every database the test can reach (SQLite always, PostgreSQL with
 * TEST_POSTGRES_URL, MongoDB with TEST_MONGO_URL), with real BullMQ deliveries to the sandbox's stand-ins: each
 * channel's outcome (queued, then delivered; failed with the dead letter's reason; suppressed by the cooldown or the
 * channel minimum), the agent's closes as actions, the account boundary (another account: 404, and nothing of the
 * owner's channels or closes), newest first with `limit` and `total`, and 400s on bad filters.
 */
import type { CallerIdentity } from '@rp/contracts';
import { testDatabases } from '@rp/persistence';
import { type DeliveryHarness, WEBHOOK_SECRET, alertFor, startDeliveryHarness } from '../../test/delivery.int-support';

const { databases, skipped } = testDatabases('alert_history');
process.stdout.write(
  `alert history drivers: ${databases.map((d) => d.name).join(', ')}${skipped.map((s) => ` (${s})`).join('')}\n`,
);

const BASE = '/api/v1/rms/notifications';
const ALERTS = '/api/v1/rms/alerts';
const POOL = 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA';
const TX = 'ab'.repeat(32);

interface ChannelOutcome {
  channel: string;
  outcome: string;
  at: string;
  error?: string;
}

describe.each(databases)('alert history on $name', ({ url, drop }) => {
  let h: DeliveryHarness;
  let chats = 7_100_000 + Math.floor(Math.random() * 100_000);

  beforeAll(async () => {
    h = await startDeliveryHarness({ DATABASE_URL: url });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await drop();
  });

  const webhook = (alert: Record<string, unknown>, routing?: Record<string, unknown>) =>
    h.call('POST', `${BASE}/webhook`, {
      body: { source: 'ops', alert, ...(routing && { routing }) },
      headers: { 'x-webhook-secret': WEBHOOK_SECRET },
    });
  const history = (caller: CallerIdentity | undefined, query = '') =>
    h.call('GET', `${ALERTS}${query}`, caller ? { caller } : {});

  /** An account with a webhook (minimum `high`) and a messenger channel (minimum `critical`) for a fresh wallet. */
  async function owner() {
    const caller = h.caller();
    const wallet = h.wallet();
    const hook = h.hookUrl();
    chats += 1;
    const registrations = [
      ['channelhook', { walletAddress: wallet, channelWebhook: hook, minRiskLevel: 'high' }],
      ['messenger', { walletAddress: wallet, messengerChatId: String(chats), minRiskLevel: 'critical' }],
    ] as const;
    for (const [path, body] of registrations) {
      expect((await h.call('POST', `${BASE}/${path}`, { caller, body })).status).toBe(201);
    }
    return { caller, wallet, hookPath: new URL(hook).pathname.replace(/^\/hooks\//, ''), chatId: String(chats) };
  }

  /** Asks until the alert's channels reach the wanted outcomes (deliveries finish in the background). */
  async function outcomesOf(caller: CallerIdentity, wallet: string, alertId: string, wanted: Record<string, string>) {
    let channels: ChannelOutcome[] = [];
    for (let i = 0; i < 300; i += 1) {
      const answer = await history(caller, `?walletAddress=${wallet}`);
      expect(answer.status).toBe(200);
      channels = answer.body.alerts.find((a: { alertId: string }) => a.alertId === alertId)?.channels ?? [];
      const now = Object.fromEntries(channels.map((c) => [c.channel, c.outcome]));
      if (JSON.stringify(now) === JSON.stringify(wanted)) return channels;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`outcomes of ${alertId} stayed ${JSON.stringify(channels)}, wanted ${JSON.stringify(wanted)}`);
  }

  it('records each channel: queued then delivered, suppressed below its minimum, and the alert as raised', async () => {
    const o = await owner();
    const alert = alertFor(o.wallet, { riskLevel: 'high', healthFactor: 1.1234, triggers: ['low_health_factor'] });
    expect((await webhook(alert)).body).toMatchObject({ queued: ['channelhook'], suppressed: ['messenger'] });

    const first = await history(o.caller, `?walletAddress=${o.wallet}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: true, total: 1, actions: [] });
    expect(first.body.alerts).toEqual([
      {
        alertId: alert.alertId,
        walletAddress: o.wallet,
        poolAddress: POOL,
        riskLevel: 'high',
        triggers: ['low_health_factor'],
        healthFactor: 1.1234,
        evaluatedAt: alert.evaluatedAt,
        channels: [
          expect.objectContaining({ channel: 'channelhook', outcome: expect.stringMatching(/^(queued|delivered)$/) }),
          expect.objectContaining({ channel: 'messenger', outcome: 'suppressed' }),
        ],
      },
    ]);
    const channels = await outcomesOf(o.caller, o.wallet, alert.alertId, {
      channelhook: 'delivered',
      messenger: 'suppressed',
    });
    expect(h.messages({ channel: 'webhook', destination: o.hookPath })).toHaveLength(1);
    for (const channel of channels) expect(Date.parse(channel.at)).not.toBeNaN();
    expect(channels.find((c) => c.channel === 'channelhook')?.error).toBeUndefined();
  });

  it('records a delivery that failed with its reason, and an alert the cooldown held back as suppressed', async () => {
    const o = await owner();
    h.sandbox.channels.webhooks.removeHook(o.hookPath, 410);
    const failing = alertFor(o.wallet, { riskLevel: 'critical' });
    expect((await webhook(failing)).body.queued).toEqual(['messenger', 'channelhook']);
    const channels = await outcomesOf(o.caller, o.wallet, failing.alertId, {
      channelhook: 'failed',
      messenger: 'delivered',
    });
    expect(channels.find((c) => c.channel === 'channelhook')?.error).toMatch(/webhook 4(04|10)/);

    const held = alertFor(o.wallet, { riskLevel: 'critical' });
    expect((await webhook(held)).body).toMatchObject({ queued: [], suppressed: ['messenger', 'channelhook'] });
    const answer = await history(o.caller, `?walletAddress=${o.wallet}`);
    expect(answer.body.total).toBe(2);
    expect(answer.body.alerts.map((a: { alertId: string }) => a.alertId)).toEqual([held.alertId, failing.alertId]);
    expect(answer.body.alerts[0].channels.map((c: ChannelOutcome) => [c.channel, c.outcome])).toEqual([
      ['channelhook', 'suppressed'],
      ['messenger', 'suppressed'],
    ]);
  });

  it("keeps alerts, outcomes and closes to the account: another account gets 404 and nothing of the owner's", async () => {
    const o = await owner();
    const alert = alertFor(o.wallet, { riskLevel: 'critical' });
    await webhook(alert);
    await outcomesOf(o.caller, o.wallet, alert.alertId, { channelhook: 'delivered', messenger: 'delivered' });
    const close = {
      eventId: `close-${Date.now()}`,
      type: 'close_confirmed',
      walletAddress: o.wallet,
      occurredAt: new Date().toISOString(),
      poolAddress: POOL,
      healthFactorBefore: 1.0421,
      healthFactorAfter: null,
      txHash: TX,
    };
    expect((await h.call('POST', '/api/v1/rms/events', { caller: o.caller, body: close })).status).toBe(202);
    const refused = { ...close, eventId: `refused-${Date.now()}`, type: 'refused', reason: 'fee_above_cap' };
    expect((await h.call('POST', '/api/v1/rms/events', { caller: o.caller, body: refused })).status).toBe(202);

    const mine = await history(o.caller);
    expect(mine.body.alerts.map((a: { alertId: string }) => a.alertId)).toEqual([alert.alertId]);
    expect(mine.body.actions).toEqual([
      {
        eventId: close.eventId,
        type: 'close_confirmed',
        walletAddress: o.wallet,
        poolAddress: POOL,
        healthFactorBefore: 1.0421,
        healthFactorAfter: null,
        txHash: TX,
        occurredAt: close.occurredAt,
      },
    ]);

    // Another account: the wallet is not one of its own.
    const stranger = h.caller();
    const denied = await history(stranger, `?walletAddress=${o.wallet}`);
    expect(denied.status).toBe(404);
    expect(denied.body).toMatchObject({ success: false, status: 404, code: 'NOT_FOUND' });
    expect(await history(stranger)).toMatchObject({ status: 200, body: { alerts: [], total: 0, actions: [] } });

    // Once it watches the wallet too: the wallet's alert, with its own channel only, and none of the owner's closes.
    const hook = h.hookUrl();
    const body = { walletAddress: o.wallet, channelWebhook: hook, minRiskLevel: 'low' };
    expect((await h.call('POST', `${BASE}/channelhook`, { caller: stranger, body })).status).toBe(201);
    const shared = await history(stranger, `?walletAddress=${o.wallet}`);
    expect(shared.status).toBe(200);
    expect(shared.body.alerts).toEqual([expect.objectContaining({ alertId: alert.alertId, channels: [] })]);
    expect(shared.body.actions).toEqual([]);
    expect(JSON.stringify(shared.body)).not.toContain(o.chatId);

    // A risk configuration makes a wallet the account's too.
    const third = h.caller();
    expect(
      (await h.call('PUT', `/api/v1/rms/config/${o.wallet}`, { caller: third, body: { depegBps: 100 } })).status,
    ).toBe(200);
    expect((await history(third, `?walletAddress=${o.wallet}`)).body.total).toBe(1);
  });

  it('filters by level and since, newest first, limit of them, total of all', async () => {
    const o = await owner();
    const at = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    const levels = ['medium', 'high', 'critical', 'high'] as const;
    const alerts = levels.map((riskLevel, i) => alertFor(o.wallet, { riskLevel, evaluatedAt: at(40 - i * 10) }));
    for (const alert of alerts) expect((await webhook(alert, { priority: 'urgent' })).status).toBe(202);

    const all = await history(o.caller, `?walletAddress=${o.wallet}&limit=2`);
    expect(all.body.total).toBe(4);
    expect(all.body.alerts.map((a: { alertId: string }) => a.alertId)).toEqual([alerts[3].alertId, alerts[2].alertId]);

    const severe = await history(o.caller, `?walletAddress=${o.wallet}&level=alert`);
    expect(severe.body.total).toBe(3);
    expect(severe.body.alerts.map((a: { riskLevel: string }) => a.riskLevel)).toEqual(['high', 'critical', 'high']);

    const recent = await history(o.caller, `?level=critical&since=${encodeURIComponent(at(25))}`);
    expect(recent.body.alerts.map((a: { alertId: string }) => a.alertId)).toEqual([alerts[2].alertId]);
  });

  it.each([
    ['?level=severe', ['level']],
    ['?limit=0', ['limit']],
    ['?limit=501', ['limit']],
    ['?limit=ten&since=yesterday', ['since', 'limit']],
    ['?walletAddress=GBAD', ['walletAddress']],
    ['?wallet=G', ['wallet']],
  ])('refuses %s with one details[] entry per bad value', async (query, fields) => {
    const answer = await history(h.caller(), query);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, status: 400, code: 'VALIDATION_FAILED' });
    expect(answer.body.details.map((d: { field: string }) => d.field)).toEqual(fields);
  });

  it('needs an API key', async () => {
    expect((await history(undefined)).status).toBe(401);
  });
});
