/**
 * Registration, retrieval and deletion in-process against SQLite and Redis: spec field names, secrets sealed at rest
 * and masked in answers, the account boundary (another account gets 404) and field-level 400s.
 */
import { DocumentStore } from '@rp/persistence';
import { type DeliveryHarness, startDeliveryHarness } from '../../test/delivery.int-support';
import { CHANNEL_CONFIGS } from './notification-config.repository';

const BASE = '/api/v1/rms/notifications';

describe('notification configurations', () => {
  let h: DeliveryHarness;
  beforeAll(async () => {
    h = await startDeliveryHarness();
  }, 60_000);
  afterAll(() => h?.close());

  it('registers the three channels for the account, masks secrets, stores them sealed, and deletes one', async () => {
    const wallet = h.wallet();
    const caller = h.caller({ account: `wallet:${wallet}`, email: 'owner@example.com' });
    const hook = h.hookUrl();
    const token = `777:${'b'.repeat(35)}`;
    const m = await h.call('POST', `${BASE}/messenger`, {
      caller,
      body: {
        walletAddress: wallet,
        messengerChatId: '-1001234567890',
        messengerBotToken: token,
        minRiskLevel: 'alert',
      },
    });
    expect(m.status).toBe(201);
    expect(m.body).toMatchObject({
      success: true,
      walletAddress: wallet,
      enabledChannels: ['messenger'],
      messengerChatId: '-1001234567890',
      messengerBotToken: '777:****bbbb',
    });
    expect(m.body.channels.messenger).toMatchObject({ enabled: true, minRiskLevel: 'high' });
    const c = await h.call('POST', `${BASE}/channelhook`, {
      caller,
      body: { walletAddress: wallet, channelWebhook: hook, minRiskLevel: 'warn' },
    });
    expect(c.status).toBe(201);
    expect(c.body.channelWebhook).toMatch(/\/hooks\/discord\/\*\*\*\*$/);
    const e = await h.call('POST', `${BASE}/email`, {
      caller,
      body: { walletAddress: wallet, email: 'owner@example.com' },
    });
    expect(e.status).toBe(201);
    expect(e.body.enabledChannels).toEqual(['messenger', 'channelhook', 'email']);
    expect(e.body.channels.email).toMatchObject({ minRiskLevel: 'high', email: 'owner@example.com' });
    expect(e.body.channels.channelhook.minRiskLevel).toBe('medium');

    const text = JSON.stringify([m.body, c.body, e.body]);
    expect(text).not.toContain(token);
    expect(text).not.toContain(hook);

    // Same account, other key (another email even): same configuration. Another account, with the owner's very
    // email: 404 on every route, and its own registration changes nothing of the owner's.
    const again = await h.call('GET', `${BASE}?walletAddress=${wallet}`, {
      caller: h.caller({ account: caller.account, email: 'another@example.com' }),
    });
    expect(again.status).toBe(200);
    expect(again.body.enabledChannels).toEqual(['messenger', 'channelhook', 'email']);
    const stranger = h.caller({ email: 'owner@example.com' });
    expect((await h.call('GET', `${BASE}?walletAddress=${wallet}`, { caller: stranger })).status).toBe(404);
    const own = await h.call('POST', `${BASE}/messenger`, {
      caller: stranger,
      body: { walletAddress: wallet, messengerChatId: '999', enabledChannels: ['messenger'] },
    });
    expect(own.status).toBe(201);
    const unchanged = await h.call('GET', `${BASE}?walletAddress=${wallet}`, { caller });
    expect(unchanged.body).toMatchObject({
      enabledChannels: ['messenger', 'channelhook', 'email'],
      messengerChatId: '-1001234567890',
    });
    expect((await h.call('DELETE', `${BASE}?walletAddress=${wallet}&channel=email`, { caller: stranger })).status).toBe(
      404,
    );
    expect(
      (await h.call('POST', `${BASE}/test?walletAddress=${wallet}&channel=email`, { caller: stranger })).status,
    ).toBe(404);

    // At rest: sealed, never the clear value.
    const store = h.app.get(DocumentStore);
    const rows = await (
      await store.collection<Record<string, unknown> & { id: string }>(CHANNEL_CONFIGS)
    ).find({ walletAddress: wallet });
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(hook);
    expect(stored).toMatch(/"botToken":"v1\./);

    const deleted = await h.call('DELETE', `${BASE}?walletAddress=${wallet}&channel=email`, { caller });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ success: true, channel: 'email', deleted: true });
    const after = await h.call('GET', `${BASE}?walletAddress=${wallet}`, { caller });
    expect(after.body.enabledChannels).toEqual(['messenger', 'channelhook']);
    expect((await h.call('DELETE', `${BASE}?walletAddress=${wallet}&channel=email`, { caller })).status).toBe(404);
  });

  it('enabledChannels on the messenger registration keeps only the listed channels enabled', async () => {
    const caller = h.caller({ email: 'toggle@example.com' });
    const wallet = h.wallet();
    await h.call('POST', `${BASE}/email`, { caller, body: { walletAddress: wallet, email: 'a@example.com' } });
    const m = await h.call('POST', `${BASE}/messenger`, {
      caller,
      body: { walletAddress: wallet, messengerChatId: 12345, enabledChannels: ['messenger'] },
    });
    expect(m.status).toBe(201);
    expect(m.body.enabledChannels).toEqual(['messenger']);
    expect(m.body.messengerBotToken).toBeNull();
    expect(m.body.channels.email.enabled).toBe(false);
  });

  it.each([
    ['messenger', { messengerChatId: '12ab' }, 'messengerChatId'],
    ['messenger', { messengerChatId: '@ab' }, 'messengerChatId'],
    ['messenger', { messengerChatId: 0 }, 'messengerChatId'],
    ['messenger', { messengerChatId: '1', messengerBotToken: 'not-a-token' }, 'messengerBotToken'],
    ['messenger', { messengerChatId: '1', minRiskLevel: 'severe' }, 'minRiskLevel'],
    ['messenger', { messengerChatId: '1', enabledChannels: ['sms'] }, 'enabledChannels'],
    ['email', { email: 'not an email' }, 'email'],
    ['channelhook', { channelWebhook: 'http://discord.com/api/webhooks/1/abc' }, 'channelWebhook'],
    ['channelhook', { channelWebhook: 'https://example.com/api/webhooks/1/abc' }, 'channelWebhook'],
    ['channelhook', { channelWebhook: 'https://127.0.0.1/api/webhooks/1/abc' }, 'channelWebhook'],
    ['channelhook', { channelWebhook: 'https://discord.com:8443/api/webhooks/1/abc' }, 'channelWebhook'],
    ['channelhook', { channelWebhook: 'https://user:pw@discord.com/api/webhooks/1/abc' }, 'channelWebhook'],
    ['channelhook', { channelWebhook: 'http://127.0.0.2:1/hooks/discord/1/x' }, 'channelWebhook'],
    ['channelhook', { channelWebhook: 'file:///etc/passwd' }, 'channelWebhook'],
  ])('POST /%s refuses %j with a 400 naming the field', async (channel, fields, field) => {
    const caller = h.caller();
    const answer = await h.call('POST', `${BASE}/${channel}`, {
      caller,
      body: { walletAddress: h.wallet(), ...fields },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, code: 'VALIDATION_FAILED' });
    expect(answer.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses a bad wallet address on every route', async () => {
    const caller = h.caller();
    for (const [method, path] of [
      ['POST', `${BASE}/email`],
      ['GET', `${BASE}?walletAddress=GBAD`],
      ['DELETE', `${BASE}?walletAddress=GBAD&channel=email`],
    ] as const) {
      const answer = await h.call(method, path, {
        caller,
        body: method === 'POST' ? { walletAddress: 'GBAD', email: 'a@b.co' } : undefined,
      });
      expect(answer.status).toBe(400);
      expect(answer.body.details[0].field).toBe('walletAddress');
    }
  });

  it('needs an API key', async () => {
    expect((await h.call('GET', `${BASE}?walletAddress=${h.wallet()}`)).status).toBe(401);
  });
});
