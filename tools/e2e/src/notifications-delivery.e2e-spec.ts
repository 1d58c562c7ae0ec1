/**
 * Notifications through the gateway with real API keys: registrations belong to the key's account (another account
 * gets 404), secrets are masked, the inbound webhook reaches the sandbox's Telegram, Discord/Slack and SMTP
 * stand-ins, the test message works on each channel, and failed deliveries land in the DLQ and are re-driven.
 */
import { startStack } from '@rp/dev';
import {
  BOT_TOKEN,
  NOTIFICATIONS,
  type NotificationsCalls,
  notificationsCalls,
  notificationsStack,
  alertFor,
} from './support/notification-channels';

describe('notifications through the gateway', () => {
  let s: NotificationsCalls;
  beforeAll(async () => {
    s = notificationsCalls(await startStack(notificationsStack()));
  }, 180_000);
  afterAll(() => s?.stack.close());

  async function registerAll(key: string, wallet: string, chatId: string, hook: string, email: string) {
    await s.register(key, 'messenger', { walletAddress: wallet, messengerChatId: chatId, minRiskLevel: 'warn' });
    await s.register(key, 'channelhook', { walletAddress: wallet, channelWebhook: hook, minRiskLevel: 'medium' });
    return s.register(key, 'email', { walletAddress: wallet, email });
  }

  it('registers, reads and deletes for the key account only, with secrets masked', async () => {
    const key = await s.apiKey('owner@example.com');
    const other = await s.apiKey('other@example.com');
    const wallet = s.wallet();
    const hook = s.hookUrl('slack');
    const last = await registerAll(key, wallet, '@alerts_channel', hook, 'owner@example.com');
    expect(last.body).toMatchObject({
      success: true,
      walletAddress: wallet,
      enabledChannels: ['messenger', 'channelhook', 'email'],
      messengerChatId: '@alerts_channel',
    });
    expect(last.body.channels.messenger.minRiskLevel).toBe('medium');
    expect(JSON.stringify(last.body)).not.toContain(hook);
    const token = `123456:${'t'.repeat(35)}`;
    const withToken = await s.call('POST', `${NOTIFICATIONS}/messenger`, {
      key,
      body: { walletAddress: wallet, messengerChatId: '-1001', messengerBotToken: token },
    });
    expect(withToken.body.messengerBotToken).toBe('123456:****tttt');
    expect(JSON.stringify(withToken.body)).not.toContain(token);

    expect((await s.call('GET', `${NOTIFICATIONS}?walletAddress=${wallet}`, { key })).status).toBe(200);
    expect((await s.call('GET', `${NOTIFICATIONS}?walletAddress=${wallet}`, { key: other })).status).toBe(404);
    expect(
      (await s.call('DELETE', `${NOTIFICATIONS}?walletAddress=${wallet}&channel=email`, { key: other })).status,
    ).toBe(404);
    expect((await s.call('GET', `${NOTIFICATIONS}?walletAddress=${wallet}`)).status).toBe(401);
    const deleted = await s.call('DELETE', `${NOTIFICATIONS}?walletAddress=${wallet}&channel=email`, { key });
    expect(deleted).toMatchObject({ status: 200, body: { success: true, deleted: true } });
    const after = await s.call('GET', `${NOTIFICATIONS}?walletAddress=${wallet}`, { key });
    expect(after.body.enabledChannels).toEqual(['messenger', 'channelhook']);
    // Nothing of the secrets reached the logs.
    const logs = s.stack.app('notifications').lines.join('\n');
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(hook);
  });

  it('delivers a webhook alert to the three stand-ins and sends a test message on each channel', async () => {
    const key = await s.apiKey();
    const wallet = s.wallet();
    const chatId = String(70_000_000 + Math.floor(Math.random() * 1_000_000));
    const hook = s.hookUrl();
    const hookPath = new URL(hook).pathname.replace(/^\/hooks\//, '');
    const email = `${chatId}@example.com`;
    await registerAll(key, wallet, chatId, hook, email);

    const alert = alertFor(wallet, { riskLevel: 'alert', healthFactor: 1.1523, recommendedAction: 'REPAY' });
    const answer = await s.webhook({
      source: 'e2e',
      alert,
      routing: { channels: ['messenger', 'channelhook', 'email'], priority: 'normal' },
      timestamp: new Date().toISOString(),
    });
    expect(answer).toMatchObject({
      status: 202,
      body: { success: true, alertId: alert.alertId, queued: ['messenger', 'channelhook', 'email'], suppressed: [] },
    });
    expect((await s.webhook({ source: 'e2e', alert })).body).toMatchObject({ duplicate: true, queued: [] });
    for (const filter of [
      { channel: 'telegram', destination: chatId },
      { channel: 'webhook', destination: hookPath },
      { channel: 'email', destination: email },
    ] as const) {
      const [entry] = await s.waitForMessages({ ...filter, outcome: 'delivered' }, 1);
      expect(entry?.text).toContain('HIGH risk: health factor 1.1523');
      expect(entry?.text).toContain('/api/v1/txb/build');
    }
    expect(s.messages({ channel: 'telegram', destination: chatId })[0]?.source).toBe(`bot:${BOT_TOKEN.split(':')[0]}`);

    for (const channel of ['messenger', 'channelhook', 'email']) {
      const test = await s.call('POST', `${NOTIFICATIONS}/test?walletAddress=${wallet}&channel=${channel}`, { key });
      expect(test).toMatchObject({ status: 202, body: { success: true, channel } });
    }
    for (const filter of [
      { channel: 'telegram', destination: chatId },
      { channel: 'webhook', destination: hookPath },
      { channel: 'email', destination: email },
    ] as const) {
      const found = await s.waitForMessages({ ...filter, match: (m) => m.text.includes('Test message') }, 1);
      expect(found).toHaveLength(1);
    }
  }, 120_000);

  it('puts permanent failures in the DLQ with the reason and re-drives them by their job id', async () => {
    const key = await s.apiKey();
    const wallet = s.wallet();
    const hook = s.hookUrl();
    const hookPath = new URL(hook).pathname.replace(/^\/hooks\//, '');
    await s.register(key, 'channelhook', { walletAddress: wallet, channelWebhook: hook, minRiskLevel: 'low' });
    s.stack.sandbox.channels.webhooks.removeHook(hookPath, 410);
    const alert = alertFor(wallet);
    expect((await s.webhook({ source: 'e2e', alert })).body.queued).toEqual(['channelhook']);
    let entry: { id: string; lastError: string; destination: string; attempts: number } | undefined;
    for (let i = 0; i < 300 && !entry; i += 1) {
      const dlq = await s.admin('GET', '/dlq');
      expect(dlq.status).toBe(200);
      entry = dlq.body.latest.find((e: { alertId: string }) => e.alertId === alert.alertId);
      if (!entry) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(entry).toMatchObject({ attempts: 1, lastError: expect.stringMatching(/webhook 4(04|10)/) });
    expect(entry?.destination).not.toContain(hookPath.split('/').pop());
    expect(
      (await s.call('GET', `${NOTIFICATIONS}/dlq`, { headers: { 'x-admin-key': 'not-the-admin-key-000' } })).status,
    ).toBe(403);

    s.stack.sandbox.channels.webhooks.restoreHook(hookPath);
    const redriven = await s.admin('POST', `/dlq/${entry!.id}/redrive`);
    expect(redriven).toMatchObject({ status: 202, body: { redriven: [entry!.id] } });
    const [delivered] = await s.waitForMessages({ channel: 'webhook', destination: hookPath, outcome: 'delivered' }, 1);
    expect(delivered?.text).toContain(alert.alertId);
  }, 120_000);
});
