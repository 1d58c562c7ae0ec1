/**
 * Accounts from outside (issue 16, ADR 015): two wallets buy keys over real x402 on the sandbox, through the gateway,
 * with the same email (the victim's, which anyone can type). Each key's account is its paying wallet; the second
 * buyer can neither read, change, delete nor test the victim's alert configuration, and the sandbox's Telegram,
 * webhook and SMTP stand-ins receive nothing from it. Two keys bought by one wallet share its configurations.
 */
import { type Stack, startStack } from '@rp/dev';
import { accountsStack, buyKey } from './support/accounts';
import { NOTIFICATIONS } from './support/notification-channels';

const PRICE = 2_026_000n;
const SHARED_EMAIL = 'victim@example.com';

describe('accounts are proven by payment, not by the email a buyer types', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(accountsStack());
  }, 120_000);
  afterAll(() => stack?.close());

  it("keeps a second buyer with the victim's email away from the victim's alerts", async () => {
    const victimWallet = stack.wallet({ usdc: 2n * PRICE });
    const attackerWallet = stack.wallet({ usdc: PRICE });
    // Both flows prove the payer: the victim pays directly, the attacker through prepare/complete.
    const victim = await buyKey(stack, victimWallet, SHARED_EMAIL, 'direct');
    const attacker = await buyKey(stack, attackerWallet, SHARED_EMAIL, 'assisted');
    // A second key of the victim's wallet, bought with another email: the same account.
    const victimAgain = await buyKey(stack, victimWallet, 'someone-else@example.com', 'direct');

    const me = async (key: string) => (await stack.api.call('GET', '/keys/me', { key })).body;
    expect(await me(victim)).toMatchObject({ email: SHARED_EMAIL, account: `wallet:${victimWallet.address}` });
    expect(await me(attacker)).toMatchObject({ email: SHARED_EMAIL, account: `wallet:${attackerWallet.address}` });
    expect(await me(victimAgain)).toMatchObject({ account: `wallet:${victimWallet.address}` });

    // The victim registers the three channels for the wallet it protects.
    const protectedWallet = victimWallet.address;
    const chatId = String(80_000_000 + Math.floor(Math.random() * 1_000_000));
    const hook = `${stack.sandbox.url}/hooks/discord/${Date.now()}/victimtoken`;
    for (const [channel, body] of [
      ['messenger', { messengerChatId: chatId, minRiskLevel: 'warn' }],
      ['channelhook', { channelWebhook: hook }],
      ['email', { email: SHARED_EMAIL }],
    ] as const) {
      const registered = await stack.api.call('POST', `${NOTIFICATIONS}/${channel}`, {
        key: victim,
        body: { walletAddress: protectedWallet, ...body },
      });
      expect({ channel, status: registered.status }).toEqual({ channel, status: 201 });
    }
    const config = `${NOTIFICATIONS}?walletAddress=${protectedWallet}`;
    const before = (await stack.api.call('GET', config, { key: victim })).body;
    expect(before.enabledChannels).toEqual(['messenger', 'channelhook', 'email']);

    // The attacker: 404 on reading, deleting and testing, for every channel.
    expect((await stack.api.call('GET', config, { key: attacker })).status).toBe(404);
    for (const channel of ['messenger', 'channelhook', 'email']) {
      const deleted = await stack.api.call('DELETE', `${config}&channel=${channel}`, { key: attacker });
      const tested = await stack.api.call(
        'POST',
        `${NOTIFICATIONS}/test?walletAddress=${protectedWallet}&channel=${channel}`,
        { key: attacker },
      );
      expect({ channel, deleted: deleted.status, tested: tested.status }).toEqual({
        channel,
        deleted: 404,
        tested: 404,
      });
    }
    // Its own registration for the wallet is its own: the victim's chat stays the victim's.
    const replaced = await stack.api.call('POST', `${NOTIFICATIONS}/messenger`, {
      key: attacker,
      body: { walletAddress: protectedWallet, messengerChatId: '999', enabledChannels: ['messenger'] },
    });
    expect(replaced.status).toBe(201);
    const after = (await stack.api.call('GET', config, { key: victim })).body;
    expect({ ...after, timestamp: before.timestamp }).toEqual(before);

    // Nothing reached anyone from the attacker's calls: the stand-ins hold nothing. The victim's own test message
    // does arrive (the path works), and it is then the only message anywhere.
    expect(stack.sandbox.channels.log.list({})).toEqual([]);
    const test = await stack.api.call(
      'POST',
      `${NOTIFICATIONS}/test?walletAddress=${protectedWallet}&channel=messenger`,
      {
        key: victim,
      },
    );
    expect(test.status).toBe(202);
    const arrived = await waitFor(() => stack.sandbox.channels.log.list({ channel: 'telegram', destination: chatId }));
    expect(arrived).toHaveLength(1);
    expect(stack.sandbox.channels.log.list({})).toHaveLength(1);

    // The victim's second key sees and manages the same configuration; the first sees the change.
    expect((await stack.api.call('GET', config, { key: victimAgain })).body.enabledChannels).toEqual([
      'messenger',
      'channelhook',
      'email',
    ]);
    expect((await stack.api.call('DELETE', `${config}&channel=email`, { key: victimAgain })).status).toBe(200);
    expect((await stack.api.call('GET', config, { key: victim })).body.enabledChannels).toEqual([
      'messenger',
      'channelhook',
    ]);
    // The email is still the contact and the status lookup.
    const status = await stack.api.call('GET', `/keys/subscribe/status?email=${encodeURIComponent(SHARED_EMAIL)}`);
    expect(status).toMatchObject({ status: 200, body: { active: true } });
  }, 180_000);

  it('gives partner keys named alike one account, and an unnamed partner key its own', async () => {
    const first = await stack.api.partnerKey({ email: 'ops@acme.example', partner: 'acme' });
    const second = await stack.api.partnerKey({ email: 'other@acme.example', partner: 'acme' });
    const unnamed = await stack.api.partnerKey({ email: 'ops@acme.example' });
    expect([first.account, second.account, unnamed.account]).toEqual([
      'partner:acme',
      'partner:acme',
      `partner:key-${unnamed.keyId}`,
    ]);
    const wallet = stack.wallet({ usdc: 0n }).address;
    const registered = await stack.api.call('POST', `${NOTIFICATIONS}/email`, {
      key: first.apiKey,
      body: { walletAddress: wallet, email: 'ops@acme.example' },
    });
    expect(registered.status).toBe(201);
    const config = `${NOTIFICATIONS}?walletAddress=${wallet}`;
    expect((await stack.api.call('GET', config, { key: second.apiKey })).status).toBe(200);
    expect((await stack.api.call('GET', config, { key: unnamed.apiKey })).status).toBe(404);
    expect((await stack.api.call('GET', '/keys/me', { key: second.apiKey })).body.account).toBe('partner:acme');
  }, 60_000);
});

/** Polls until `read` finds something (the delivery is asynchronous), up to a generous bound. */
async function waitFor<T>(read: () => T[], timeoutMs = 60_000): Promise<T[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = read();
    if (found.length > 0 || Date.now() > until) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
