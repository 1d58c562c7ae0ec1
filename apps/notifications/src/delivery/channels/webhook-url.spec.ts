import type { LookupOptions } from 'node:dns';
import { WebhookAddressRefused, WebhookUrlPolicy, checkedLookup, flavorOf, isNonPublicAddress } from './webhook-url';

const DISCORD = 'https://discord.com/api/webhooks/123456/abcDEF_-x';
const SLACK = 'https://hooks.slack.com/services/T000/B000/XXXX';

describe('channelWebhook SSRF rules', () => {
  const resolveTo = (addresses: string[]) => async () => addresses;

  it('accepts Discord and Slack webhooks that resolve to public addresses, and picks the payload by URL', async () => {
    const policy = new WebhookUrlPolicy([], resolveTo(['162.159.128.233', '2606:4700::6810:84e5']));
    expect(await policy.check(DISCORD)).toEqual({ ok: true, flavor: 'discord', lookup: expect.any(Function) });
    expect(await policy.check(SLACK)).toEqual({ ok: true, flavor: 'slack', lookup: expect.any(Function) });
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
    ['::ffff:7f00:1'],
    ['::FFFF:7F00:0001'],
    ['0:0:0:0:0:ffff:a00:1'],
    ['::ffff:a9fe:a9fe'],
    ['64:ff9b::7f00:1'],
    ['64:ff9b::808:808'],
    ['64:ff9b:1::a00:1'],
    ['2002:7f00:1::1'],
    ['2002:808:808::1'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['::7f00:1'],
  ])('refuses a Discord host that resolves to %s (DNS rebinding to a private network)', async (address) => {
    const policy = new WebhookUrlPolicy([], resolveTo(['162.159.128.233', address]));
    expect(await policy.check(DISCORD)).toEqual({
      ok: false,
      reason: 'must not resolve to a private, loopback or link-local address',
    });
  });

  it('refuses at connect time an answer with any non-public address, and hands on only checked ones', async () => {
    const answers = [['162.159.128.233', '2606:4700::6810:84e5'], ['162.159.128.233', '::ffff:7f00:1'], []];
    const lookup = checkedLookup(async () => answers.shift() ?? []);
    const ask = (options: LookupOptions) =>
      new Promise((resolve) =>
        lookup('discord.com', options, (error, address, family) => resolve({ error, address, family })),
      );
    expect(await ask({ all: true })).toMatchObject({
      error: null,
      address: [
        { address: '162.159.128.233', family: 4 },
        { address: '2606:4700::6810:84e5', family: 6 },
      ],
    });
    expect(await ask({})).toMatchObject({ error: expect.any(WebhookAddressRefused) });
    expect(await ask({})).toMatchObject({ error: expect.any(WebhookAddressRefused) });
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
    // A mapped public address is as public as the IPv4 address inside, in either spelling.
    expect(isNonPublicAddress('::ffff:808:808')).toBe(false);
    expect(isNonPublicAddress('::ffff:8.8.8.8')).toBe(false);
    expect(isNonPublicAddress('not-an-ip')).toBe(true);
    expect(flavorOf(new URL(SLACK))).toBe('slack');
  });
});
