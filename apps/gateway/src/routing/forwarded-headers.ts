import type { IncomingHttpHeaders } from 'node:http';
import type { HttpRequest } from '@rp/platform';

/**
 * Headers that describe one connection, not the request (RFC 9110 7.6.1), plus `host` (the service's own is sent)
 * and `expect` (the gateway has already answered 100-continue to its client).
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'expect',
]);

/** Recomputed for the bytes actually forwarded (a GET's body is not forwarded; undici sets it from the body). */
const RECOMPUTED = 'content-length';

/** The API key stays at the edge: services trust the signed identity instead. */
const EDGE_CREDENTIALS = new Set(['authorization', 'x-api-key']);

/** Every name `forwardedHeaders` drops whatever the request: one lookup per header instead of three. */
const NEVER_FORWARDED: ReadonlySet<string> = new Set([...HOP_BY_HOP, ...EDGE_CREDENTIALS, RECOMPUTED]);

/** What the gateway saw of the hop a request came in on (through the proxies `TRUST_PROXY` trusts). */
export interface IncomingHop {
  /** The socket's peer address. */
  peer: string;
  protocol: string;
  host: string;
}

/** The hop of a request Fastify has read. */
export function hopOf(request: HttpRequest): IncomingHop {
  return { peer: request.raw.socket.remoteAddress ?? 'unknown', protocol: request.protocol, host: request.host };
}

/**
 * The headers a service receives for a request with `incoming` headers: the client's, without hop-by-hop headers,
 * without the names the client lists in `Connection`, without its credentials, without any copy of the gateway's
 * internal headers and without `Content-Length` (set again for the bytes forwarded);
 * plus `X-Forwarded-For` (the client's chain with this hop's peer appended), `-Proto` and `-Host` as the gateway
 * saw them (through the proxies `TRUST_PROXY` trusts).
 */
export function forwardedHeaders(
  incoming: IncomingHttpHeaders,
  hop: IncomingHop,
  internalHeaders: ReadonlySet<string>,
): Record<string, string | string[]> {
  const listed = connectionTokens(incoming.connection);
  const headers: Record<string, string | string[]> = {};
  // for...in, not Object.entries: no array of pairs per request (Node's parsed headers have no inherited keys).
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined || NEVER_FORWARDED.has(name) || listed.has(name) || internalHeaders.has(name)) continue;
    headers[name] = value;
  }
  const chain = incoming['x-forwarded-for'];
  const prior = Array.isArray(chain) ? chain.join(', ') : chain;
  headers['x-forwarded-for'] = prior ? `${prior}, ${hop.peer}` : hop.peer;
  headers['x-forwarded-proto'] = hop.protocol;
  headers['x-forwarded-host'] = hop.host;
  return headers;
}

const NO_TOKENS: ReadonlySet<string> = new Set();
/** The two values nearly every client sends, read once (no array and no set per request). */
const COMMON_CONNECTION_VALUES: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['keep-alive', new Set(['keep-alive'])],
  ['close', new Set(['close'])],
]);

function connectionTokens(value: string | undefined): ReadonlySet<string> {
  if (!value) return NO_TOKENS;
  const common = COMMON_CONNECTION_VALUES.get(value);
  if (common) return common;
  const tokens = new Set<string>();
  for (const part of value.split(',')) {
    const token = part.trim().toLowerCase();
    if (token !== '') tokens.add(token);
  }
  return tokens;
}
