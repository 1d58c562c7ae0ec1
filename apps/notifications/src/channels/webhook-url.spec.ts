import { WebhookUrlPolicy, flavorOf, isNonPublicAddress } from './webhook-url';

const DISCORD = 'https://discord.com/api/webhooks/123456/abcDEF_-x';
const SLACK = 'https://hooks.slack.com/services/T000/B000/XXXX';

describe('channelWebhook SSRF rules', () => {
  const resolveTo = (addresses: string[]) => async () => addresses;

  it('accepts Discord and Slack webhooks that resolve to public addresses, and picks the payload by URL', async () => {
    const policy = new WebhookUrlPolicy([], resolveTo(['162.159.128.233', '2606:4700::6810:84e5']));
    expect(await policy.check(DISCORD)).toEqual({ ok: true, flavor: 'discord' });
    expect(await policy.check(SLACK)).toEqual({ ok: true, flavor: 'slack' });
  });

  it.each([
    ['127.0.0.1'],
    ['10.1.2.3'],
    ['172.20.0.1'],
    ['192.168.1.1'],
    ['169.254.169.254'],
    ['100.64.0.1'],
    ['0.0.0.0'],
    ['::1'],
    ['fe80::1'],
    ['fd00::1'],
    ['::ffff:127.0.0.1'],
    ['::ffff:10.0.0.1'],
  ])('refuses a Discord host that resolves to %s (DNS rebinding to a private network)', async (address) => {
    const policy = new WebhookUrlPolicy([], resolveTo(['162.159.128.233', address]));
    expect(await policy.check(DISCORD)).toEqual({
      ok: false,
      reason: 'must not resolve to a private, loopback or link-local address',
    });
  });

  it('refuses a host that does not resolve', async () => {
    const policy = new WebhookUrlPolicy([], async () => {
      throw new Error('ENOTFOUND');
    });
    expect(await policy.check(DISCORD)).toMatchObject({ ok: false, reason: 'host does not resolve' });
  });

  it.each([
    ['http://discord.com/api/webhooks/1/abc', 'https'],
    ['https://evil.example/api/webhooks/1/abc', 'Discord or Slack'],
    ['https://discord.com.evil.example/api/webhooks/1/abc', 'Discord or Slack'],
    ['https://discord.com/api/v10/users/@me', 'Discord or Slack'],
    ['https://hooks.slack.com/../../admin', 'Discord or Slack'],
    ['https://discord.com:444/api/webhooks/1/abc', 'default https port'],
    ['https://a:b@discord.com/api/webhooks/1/abc', 'credentials'],
    ['https://127.0.0.1/api/webhooks/1/abc', 'Discord or Slack'],
    ['https://[::1]/api/webhooks/1/abc', 'Discord or Slack'],
    ['gopher://discord.com/api/webhooks/1/abc', 'https'],
    ['not a url', 'absolute'],
  ])('refuses %s', async (url, reason) => {
    const policy = new WebhookUrlPolicy(['127.0.0.1:4000'], resolveTo(['162.159.128.233']));
    const check = await policy.check(url);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toContain(reason);
  });

  it('accepts listed host:port as listed, loopback included, over http or https, and nothing else there', async () => {
    const policy = new WebhookUrlPolicy(['127.0.0.1:4000', 'hooks.internal:8443'], resolveTo(['127.0.0.1']));
    expect(await policy.check('http://127.0.0.1:4000/hooks/discord/1/tok')).toEqual({ ok: true, flavor: 'discord' });
    expect(await policy.check('https://127.0.0.1:4000/hooks/slack/T/B/X')).toEqual({ ok: true, flavor: 'slack' });
    expect(await policy.check('https://hooks.internal:8443/x')).toMatchObject({ ok: true });
    expect((await policy.check('http://127.0.0.1:4001/hooks/discord/1/tok')).ok).toBe(false);
    expect((await policy.check('http://localhost:4000/hooks/discord/1/tok')).ok).toBe(false);
  });

  it('classifies addresses', () => {
    expect(isNonPublicAddress('8.8.8.8')).toBe(false);
    expect(isNonPublicAddress('2001:4860:4860::8888')).toBe(false);
    expect(isNonPublicAddress('not-an-ip')).toBe(true);
    expect(flavorOf(new URL(SLACK))).toBe('slack');
  });
});
