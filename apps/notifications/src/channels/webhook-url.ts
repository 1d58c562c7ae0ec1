import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export type WebhookFlavor = 'discord' | 'slack';

const DISCORD_HOSTS = new Set(['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com']);
const SLACK_HOSTS = new Set(['hooks.slack.com']);

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv6');

/** True for loopback, private, link-local, unique-local, CGNAT, multicast and unspecified addresses. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return PRIVATE.check(mapped[1], 'ipv4');
    return PRIVATE.check(address, 'ipv6');
  }
  return true;
}

export type Resolver = (hostname: string) => Promise<string[]>;
export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

export type WebhookCheck = { ok: true; flavor: WebhookFlavor } | { ok: false; reason: string };

/**
 * SSRF rules for `channelWebhook` (DECISIONS.md): https on a Discord or Slack webhook host whose every resolved
 * address is public, no credentials, default port; or a `host:port` listed in `NOTIFICATIONS_WEBHOOK_HOSTS`, taken
 * as listed (loopback included) over http or https. Checked at registration and again before every send.
 */
export class WebhookUrlPolicy {
  private readonly listed: Set<string>;

  constructor(
    listedHosts: readonly string[],
    private readonly resolve: Resolver = systemResolver,
  ) {
    this.listed = new Set(listedHosts.map((host) => host.toLowerCase()));
  }

  async check(raw: string): Promise<WebhookCheck> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { ok: false, reason: 'must be an absolute https:// URL' };
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'must be an https:// URL' };
    if (url.username || url.password) return { ok: false, reason: 'must not carry credentials' };
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const hostname = url.hostname.toLowerCase();
    if (this.listed.has(`${hostname}:${port}`)) return { ok: true, flavor: flavorOf(url) };
    if (url.protocol !== 'https:') return { ok: false, reason: 'must be an https:// URL' };
    if (url.port && url.port !== '443') return { ok: false, reason: 'must use the default https port' };
    const discord = DISCORD_HOSTS.has(hostname) && /^\/api\/webhooks\/\d+\/[A-Za-z0-9_-]+\/?$/.test(url.pathname);
    const slack =
      SLACK_HOSTS.has(hostname) && /^\/services\/[A-Za-z0-9]+\/[A-Za-z0-9]+\/[A-Za-z0-9]+\/?$/.test(url.pathname);
    if (!discord && !slack) return { ok: false, reason: 'must be a Discord or Slack incoming webhook URL' };
    let addresses: string[];
    try {
      addresses = await this.resolve(hostname);
    } catch {
      return { ok: false, reason: 'host does not resolve' };
    }
    if (addresses.length === 0 || addresses.some(isNonPublicAddress)) {
      return { ok: false, reason: 'must not resolve to a private, loopback or link-local address' };
    }
    return { ok: true, flavor: discord ? 'discord' : 'slack' };
  }
}

/** Discord embeds or Slack blocks, chosen by the URL. */
export function flavorOf(url: URL): WebhookFlavor {
  const host = url.hostname.toLowerCase();
  if (SLACK_HOSTS.has(host) || /(^|\/)slack(\/|$)/.test(url.pathname)) return 'slack';
  return 'discord';
}
