import { lookup } from 'node:dns/promises';
import { BlockList, type LookupFunction, isIP } from 'node:net';

export type WebhookFlavor = 'discord' | 'slack';

const DISCORD_HOSTS = new Set(['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com']);
const SLACK_HOSTS = new Set(['hooks.slack.com']);

const PRIVATE_V4 = new BlockList();
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
  PRIVATE_V4.addSubnet(net, prefix, 'ipv4');

/** Kept apart from the IPv4 list: `node:net` matches IPv4 addresses against IPv6 rules of the forms that embed them. */
const PRIVATE_V6 = new BlockList();
for (const [net, prefix] of [
  // Unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d.
  ['::', 96],
  // NAT64 (well-known and local-use prefixes): a gateway would carry the call to the IPv4 address inside.
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  // 6to4 and Teredo: IPv4 addresses carried inside IPv6, reachable through a relay.
  ['2002::', 16],
  ['2001::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE_V6.addSubnet(net, prefix, 'ipv6');

/** IPv4-mapped, in either spelling (::ffff:127.0.0.1, ::ffff:7f00:1): judged by the IPv4 address inside. */
const MAPPED = new BlockList();
MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');

/**
 * True for loopback, private, link-local, unique-local, CGNAT, multicast and unspecified addresses, and for IPv6
 * forms that carry an IPv4 address to somewhere else (NAT64, 6to4, Teredo, IPv4-compatible). An IPv4-mapped address
 * is judged by the IPv4 address inside, whichever way it is written; the parsing is `node:net`'s, not a pattern.
 */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE_V4.check(address, 'ipv4');
  if (family !== 6) return true;
  if (MAPPED.check(address, 'ipv6')) {
    const inner = mappedIpv4(address);
    return inner === undefined || PRIVATE_V4.check(inner, 'ipv4');
  }
  return PRIVATE_V6.check(address, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d` or `::ffff:xxxx:yyyy`). */
function mappedIpv4(address: string): string | undefined {
  const tail = address.slice(address.lastIndexOf(':') + 1);
  if (isIP(tail) === 4) return tail;
  const words = address
    .split(':')
    .slice(-2)
    .map((word) => parseInt(word || '0', 16));
  if (words.length !== 2 || words.some((word) => !(word >= 0 && word <= 0xffff))) return undefined;
  return [words[0] >> 8, words[0] & 0xff, words[1] >> 8, words[1] & 0xff].join('.');
}

/** The connection's address was not one the rules allow (a rebinding between check and connect, or a mixed answer). */
export class WebhookAddressRefused extends Error {
  override readonly name = 'WebhookAddressRefused';
}

export type Resolver = (hostname: string) => Promise<string[]>;
export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The `lookup` of a webhook connection: it resolves the host itself and hands the socket only addresses it has just
 * checked, so the address connected to is always one that passed, whatever the DNS answered at the earlier check
 * (DNS rebinding). Any non-public address in the answer fails the connection with `WebhookAddressRefused`.
 */
export function checkedLookup(resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    const answer = resolve(hostname).then((addresses): LookupEntry[] => {
      if (addresses.length === 0) throw new WebhookAddressRefused('host does not resolve');
      if (addresses.some(isNonPublicAddress)) {
        throw new WebhookAddressRefused('host resolves to a private, loopback or link-local address');
      }
      const entries = addresses
        .map((address) => ({ address, family: isIP(address) }))
        .filter((entry) => !options.family || options.family === entry.family);
      if (entries.length === 0) throw new WebhookAddressRefused('host has no address of the family asked for');
      return entries;
    });
    answer.then(
      (entries) => {
        if (options.all) (callback as unknown as (error: null, all: LookupEntry[]) => void)(null, entries);
        else callback(null, entries[0].address, entries[0].family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

interface LookupEntry {
  address: string;
  family: number;
}

export type WebhookCheck =
  | {
      ok: true;
      flavor: WebhookFlavor;
      /** Connect with this lookup (a public webhook host); absent for a listed host, taken as listed. */
      lookup?: LookupFunction;
    }
  | { ok: false; reason: string };

/**
 * SSRF rules for `channelWebhook` (DECISIONS.md): https on a Discord or Slack webhook host whose every resolved
 * address is public, no credentials, default port; or a `host:port` listed in `NOTIFICATIONS_WEBHOOK_HOSTS`, taken
 * as listed (loopback included) over http or https. Checked at registration and again before every send.
 */
export class WebhookUrlPolicy {
  private readonly listed: Set<string>;
  /** Resolves and checks again at connect time (`checkedLookup`), with the same resolver as the check. */
  private readonly lookup: LookupFunction;

  constructor(
    listedHosts: readonly string[],
    private readonly resolve: Resolver = systemResolver,
  ) {
    this.listed = new Set(listedHosts.map((host) => host.toLowerCase()));
    this.lookup = checkedLookup(resolve);
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
    return { ok: true, flavor: discord ? 'discord' : 'slack', lookup: this.lookup };
  }
}

/** Discord embeds or Slack blocks, chosen by the URL. */
export function flavorOf(url: URL): WebhookFlavor {
  const host = url.hostname.toLowerCase();
  if (SLACK_HOSTS.has(host) || /(^|\/)slack(\/|$)/.test(url.pathname)) return 'slack';
  return 'discord';
}
