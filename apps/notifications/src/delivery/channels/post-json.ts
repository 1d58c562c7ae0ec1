import type { LookupFunction } from 'node:net';
import { Agent, errors } from 'undici';
import { DeliveryError } from './delivery-error';
import { WebhookAddressRefused } from './webhook-url';

const TIMEOUT_MS = 10_000;

/**
 * One keep-alive connection pool per provider origin for every delivery of the process (undici's `request`, lighter
 * than `fetch` per call). Redirects are never followed.
 */
const AGENT_OPTIONS = {
  // undici 8 speaks HTTP/2 to any TLS server that offers it; deliveries stay on HTTP/1.1, where the timeouts below
  // and the pool's limits are what the tests prove (post-json.int-spec.ts).
  allowH2: false,
  connections: 64,
  keepAliveTimeout: 30_000,
  headersTimeout: TIMEOUT_MS,
  bodyTimeout: TIMEOUT_MS,
};
const agent = new Agent({ ...AGENT_OPTIONS, connectTimeout: 5_000 });

/**
 * Pools whose connections resolve their host with a given lookup (a webhook policy's `checkedLookup`): TLS still
 * names the host (SNI, certificate check, `Host`), only the address comes from the lookup. One per lookup, kept.
 */
const lookupAgents = new WeakMap<LookupFunction, Agent>();
function agentFor(lookup: LookupFunction | undefined): Agent {
  if (!lookup) return agent;
  let pinned = lookupAgents.get(lookup);
  if (!pinned) {
    pinned = new Agent({ ...AGENT_OPTIONS, connect: { lookup, timeout: 5_000 } });
    lookupAgents.set(lookup, pinned);
  }
  return pinned;
}

export interface PostAnswer {
  status: number;
  text: string;
  header(name: string): string | null;
}

/**
 * POST a JSON body and read the answer; an answer 3xx is a permanent failure (redirects are not followed). A
 * network failure or timeout is transient. Errors name the provider, never the URL (it carries secrets).
 */
export async function postJson(
  url: string,
  body: unknown,
  provider: string,
  options: { lookup?: LookupFunction } = {},
): Promise<PostAnswer> {
  let answer: Awaited<ReturnType<Agent['request']>>;
  try {
    const { origin, pathname, search } = new URL(url);
    answer = await agentFor(options.lookup).request({
      origin,
      path: `${pathname}${search}`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    const refused = refusalIn(error);
    if (refused) throw new DeliveryError('permanent', `${provider} URL refused at connect: ${refused.message}`);
    const timeout =
      error instanceof errors.HeadersTimeoutError ||
      error instanceof errors.BodyTimeoutError ||
      error instanceof errors.ConnectTimeoutError;
    throw new DeliveryError('transient', `${provider} ${timeout ? 'no answer in time' : 'unreachable'}`);
  }
  const text = await answer.body.text().catch(() => '');
  const status = answer.statusCode;
  if (status >= 300 && status < 400) {
    throw new DeliveryError('permanent', `${provider} answered a redirect (${status}); redirects are not followed`, {
      status,
    });
  }
  const headers = answer.headers;
  return {
    status,
    text,
    header: (name) => {
      const value = headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? (value[0] ?? null) : value;
    },
  };
}

/** The address refusal of a connection's lookup, wherever undici put it (the error or its causes). */
function refusalIn(error: unknown): WebhookAddressRefused | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth += 1) {
    if (current instanceof WebhookAddressRefused) return current;
    current = current.cause;
  }
  return undefined;
}
