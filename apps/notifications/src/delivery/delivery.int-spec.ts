/**
 * Alerts in, messages out: the inbound webhook and the test message through BullMQ to the sandbox's Telegram,
 * Discord/Slack and SMTP stand-ins, in-process on the test Redis and SQLite. Cooldown, dedupe, routing, urgent,
 * retries through 429s and 5xx in order, permanent failures and blocked bots in the DLQ, migration, re-drive.
 */
import {
  ADMIN_KEY,
  BOT_TOKEN,
  type DeliveryHarness,
  WEBHOOK_SECRET,
  alertFor,
  startDeliveryHarness,
} from '../../test/delivery.int-support';

const BASE = '/api/v1/rms/notifications';
let chats = 5_000_000;

describe('delivery', () => {
  let h: DeliveryHarness;
  beforeAll(async () => {
    h = await startDeliveryHarness();
  }, 60_000);
  afterAll(() => h?.close());

  const webhook = (body: unknown, secret = WEBHOOK_SECRET) =>
    h.call('POST', `${BASE}/webhook`, { body, headers: { 'x-webhook-secret': secret } });
  const admin = (method: 'GET' | 'POST', path: string) =>
    h.call(method, `${BASE}${path}`, { headers: { 'x-admin-key': ADMIN_KEY } });

  /** A wallet with the three channels registered (minimum `low` unless told) and where they send. */
  async function registered(minRiskLevel = 'low', hookKind: 'discord' | 'slack' = 'discord') {
    const caller = h.caller({ email: `${Math.random().toString(36).slice(2)}@example.com` });
    const wallet = h.wallet();
    chats += 1;
    const chatId = String(chats);
    const hook = h.hookUrl(hookKind);
    const email = `${chatId}@example.com`;
    for (const [path, body] of [
      ['messenger', { walletAddress: wallet, messengerChatId: chatId, minRiskLevel }],
      ['channelhook', { walletAddress: wallet, channelWebhook: hook, minRiskLevel }],
      ['email', { walletAddress: wallet, email, minRiskLevel }],
    ] as const) {
      const answer = await h.call('POST', `${BASE}/${path}`, { caller, body });
      expect(answer.status).toBe(201);
    }
    return { caller, wallet, chatId, hook, hookPath: new URL(hook).pathname.replace(/^\/hooks\//, ''), email };
  }

  it('delivers a webhook alert once to each channel, readable, and accepts the same alertId once', async () => {
    const w = await registered();
    const alert = alertFor(w.wallet, { riskLevel: 'emergency', healthFactor: 1.0432, recommendedAction: 'REPAY' });
    const answer = await webhook({
      source: 'ops',
      alert,
      routing: { channels: ['messenger', 'channelhook', 'email'], priority: 'normal' },
      timestamp: new Date().toISOString(),
    });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({
      success: true,
      alertId: alert.alertId,
      queued: ['messenger', 'channelhook', 'email'],
      suppressed: [],
    });

    const [telegram] = await h.waitForMessages({ channel: 'telegram', destination: w.chatId }, 1);
    const [hook] = await h.waitForMessages({ channel: 'webhook', destination: w.hookPath }, 1);
    const [mail] = await h.waitForMessages({ channel: 'email', destination: w.email }, 1);
    for (const entry of [telegram, hook, mail]) {
      expect(entry?.outcome).toBe('delivered');
      expect(entry?.text).toContain('CRITICAL');
      expect(entry?.text).toContain('1.0432');
      expect(entry?.text).toContain('$1,234.50');
      expect(entry?.text).toContain('/api/v1/txb/build');
    }
    expect(telegram?.source).toBe(`bot:${BOT_TOKEN.split(':')[0]}`);

    const again = await webhook({ source: 'ops', alert });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ duplicate: true, queued: [] });
  });

  it('respects routing.channels, the per-channel minimum, the cooldown, escalation and urgent', async () => {
    const w = await registered('high', 'slack');
    const pool = 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA';
    const first = await webhook({
      source: 'ops',
      alert: alertFor(w.wallet, { riskLevel: 'high', poolAddress: pool }),
      routing: { channels: ['email'] },
    });
    expect(first.body).toMatchObject({ queued: ['email'], suppressed: [] });
    const medium = await webhook({
      source: 'ops',
      alert: alertFor(w.wallet, { riskLevel: 'medium', poolAddress: pool }),
    });
    expect(medium.body).toMatchObject({ queued: [], suppressed: ['messenger', 'channelhook', 'email'] });
    const sameLevel = await webhook({
      source: 'ops',
      alert: alertFor(w.wallet, { riskLevel: 'alert', poolAddress: pool }),
    });
    expect(sameLevel.body.queued).toEqual([]);
    expect(sameLevel.body.suppressed.sort()).toEqual(['channelhook', 'email', 'messenger']);
    const worse = await webhook({
      source: 'ops',
      alert: alertFor(w.wallet, { riskLevel: 'critical', poolAddress: pool }),
    });
    expect(worse.body.queued).toEqual(['messenger', 'channelhook', 'email']);
    const cooled = await webhook({
      source: 'ops',
      alert: alertFor(w.wallet, { riskLevel: 'critical', poolAddress: pool }),
    });
    expect(cooled.body.queued).toEqual([]);
    const urgent = await webhook({
      source: 'ops',
      alert: alertFor(w.wallet, { riskLevel: 'critical', poolAddress: pool }),
      routing: { priority: 'urgent', channels: ['channelhook'] },
    });
    expect(urgent.body.queued).toEqual(['channelhook']);
    await h.waitForMessages({ channel: 'webhook', destination: w.hookPath }, 2);
    await h.waitForMessages({ channel: 'email', destination: w.email }, 2);
    const slack = h.messages({ channel: 'webhook', destination: w.hookPath });
    expect(slack.map((m) => m.outcome)).toEqual(['delivered', 'delivered']);
    expect((slack[0]?.payload as { blocks?: unknown[] }).blocks?.length).toBeGreaterThan(0);
  });

  it('refuses a wrong secret and malformed alerts without storing anything', async () => {
    const w = await registered();
    expect((await webhook({ source: 'ops', alert: alertFor(w.wallet) }, 'wrong-secret-0123456789')).status).toBe(403);
    const bad = await webhook({ source: 'ops', alert: alertFor(w.wallet, { riskLevel: 'severe', healthFactor: 'x' }) });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(['alert.riskLevel', 'alert.healthFactor']),
    );
  });

  it('sends a test message to each registered channel', async () => {
    const w = await registered();
    for (const channel of ['messenger', 'channelhook', 'email']) {
      const answer = await h.call('POST', `${BASE}/test?walletAddress=${w.wallet}&channel=${channel}`, {
        caller: w.caller,
      });
      expect(answer.status).toBe(202);
      expect(answer.body).toMatchObject({ success: true, channel });
    }
    for (const filter of [
      { channel: 'telegram', destination: w.chatId },
      { channel: 'webhook', destination: w.hookPath },
      { channel: 'email', destination: w.email },
    ] as const) {
      const [entry] = await h.waitForMessages(filter, 1);
      expect(entry?.text).toContain('Test message');
    }
  });

  it('retries through 429s and 5xx, delivering every message in order per destination', async () => {
    const w = await registered();
    h.sandbox.channels.telegram.rateLimitNext(w.chatId, 1, 2);
    h.sandbox.channels.webhooks.rateLimitNext(w.hookPath, 1, 2);
    h.sandbox.channels.webhooks.failNext(w.hookPath, 503, 2);
    h.sandbox.channels.smtp.failNext({ stage: 'data', code: 451, count: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const alert = alertFor(w.wallet, {
        alertId: `order-${w.chatId}-${i}`,
        poolAddress: `CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA`,
      });
      ids.push(alert.alertId);
      expect((await webhook({ source: 'ops', alert, routing: { priority: 'urgent' } })).status).toBe(202);
    }
    const delivered = (filter: object) => h.waitForMessages({ ...filter, outcome: 'delivered' }, 4, 60_000);
    for (const filter of [
      { channel: 'telegram', destination: w.chatId },
      { channel: 'webhook', destination: w.hookPath },
      { channel: 'email', destination: w.email },
    ] as const) {
      const received = await delivered(filter);
      expect(received.map((m) => ids.findIndex((id) => m.text.includes(id)))).toEqual([0, 1, 2, 3]);
    }
  }, 90_000);

  it('waits out 429s without spending attempts: six in a row, then delivered, nothing in the DLQ', async () => {
    const w = await registered();
    h.sandbox.channels.telegram.rateLimitNext(w.chatId, 1, 6);
    const alert = alertFor(w.wallet);
    expect((await webhook({ source: 'ops', alert, routing: { channels: ['messenger'] } })).body.queued).toEqual([
      'messenger',
    ]);
    const [delivered] = await h.waitForMessages(
      { channel: 'telegram', destination: w.chatId, outcome: 'delivered' },
      1,
      60_000,
    );
    expect(delivered?.text).toContain(alert.alertId);
    // Six refusals: with five attempts, had a 429 spent one the delivery would have been dead-lettered.
    expect(h.messages({ channel: 'telegram', destination: w.chatId, outcome: 'rejected' })).toHaveLength(6);
    const dlq = await admin('GET', '/dlq');
    expect(dlq.body.latest.filter((e: { alertId: string }) => e.alertId === alert.alertId)).toEqual([]);
  }, 90_000);

  it('dead-letters permanent failures with the reason, disables a blocked bot, follows a migration, and re-drives', async () => {
    const w = await registered();
    h.sandbox.channels.webhooks.removeHook(w.hookPath, 410);
    h.sandbox.channels.telegram.blockChat(w.chatId);
    h.sandbox.channels.smtp.failNext({ stage: 'rcpt', code: 550, count: 1 });
    const alert = alertFor(w.wallet);
    expect((await webhook({ source: 'ops', alert })).body.queued).toHaveLength(3);

    const dlqFor = async (count: number) => {
      for (let i = 0; i < 300; i += 1) {
        const status = await admin('GET', '/dlq');
        const mine = status.body.latest.filter((e: { alertId: string }) => e.alertId === alert.alertId);
        if (mine.length >= count) return { status, mine };
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('DLQ entries did not appear');
    };
    const { status, mine } = await dlqFor(3);
    expect(status.body.countsByChannel.messenger).toBeGreaterThanOrEqual(1);
    const byChannel = Object.fromEntries(mine.map((e: { channel: string }) => [e.channel, e]));
    expect(byChannel.channelhook).toMatchObject({
      attempts: 1,
      walletAddress: w.wallet,
      lastError: expect.stringMatching(/webhook 4(04|10)/),
    });
    expect(byChannel.channelhook.destination).not.toContain(w.hookPath.split('/').pop());
    expect(byChannel.email.lastError).toContain('550');
    expect(byChannel.messenger.lastError).toMatch(/403.*messenger disabled for this wallet/);
    expect(JSON.stringify(status.body)).not.toContain(BOT_TOKEN);
    const config = await h.call('GET', `${BASE}?walletAddress=${w.wallet}`, { caller: w.caller });
    expect(config.body.channels.messenger).toMatchObject({
      enabled: false,
      disabledReason: expect.stringContaining('blocked'),
    });

    // Repaired: the hook is back; re-drive that one entry under its original job id.
    h.sandbox.channels.webhooks.restoreHook(w.hookPath);
    const one = await admin('POST', `/dlq/${byChannel.channelhook.id}/redrive`);
    expect(one.status).toBe(202);
    expect(one.body.redriven).toEqual([byChannel.channelhook.id]);
    const [hook] = await h.waitForMessages({ channel: 'webhook', destination: w.hookPath, outcome: 'delivered' }, 1);
    expect(hook?.text).toContain(alert.alertId);
    expect((await admin('POST', `/dlq/${byChannel.channelhook.id}/redrive`)).status).toBe(404);

    // Re-drive all email entries: delivered now that SMTP accepts.
    const all = await admin('POST', '/dlq/redrive?channel=email');
    expect(all.body.redriven).toContain(byChannel.email.id);
    await h.waitForMessages({ channel: 'email', destination: w.email, outcome: 'delivered' }, 1);

    // A group upgraded to a supergroup: the configuration follows and the message is resent there.
    const m = await registered();
    h.sandbox.channels.telegram.migrateChat(m.chatId, -1009999000000 - chats);
    expect(
      (await webhook({ source: 'ops', alert: alertFor(m.wallet), routing: { channels: ['messenger'] } })).body.queued,
    ).toEqual(['messenger']);
    const [moved] = await h.waitForMessages(
      { channel: 'telegram', destination: String(-1009999000000 - chats), outcome: 'delivered' },
      1,
    );
    expect(moved).toBeDefined();
    const after = await h.call('GET', `${BASE}?walletAddress=${m.wallet}`, { caller: m.caller });
    expect(after.body.messengerChatId).toBe(String(-1009999000000 - chats));
  }, 90_000);

  it('guards the DLQ with the admin key', async () => {
    expect((await h.call('GET', `${BASE}/dlq`, { headers: { 'x-admin-key': 'wrong-admin-key-000000' } })).status).toBe(
      403,
    );
    expect((await admin('POST', '/dlq/redrive?channel=sms')).status).toBe(400);
    expect((await admin('POST', '/dlq/no-such-entry/redrive')).status).toBe(404);
  });
});
