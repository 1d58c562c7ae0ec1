import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { CallerIdentity, KeyIntrospection } from '@rp/contracts';
import { ApiError, type HttpReply, type HttpRequest, attachCallerIdentity } from '@rp/platform';
import { apiKeyRequired, identityOf, invalidApiKey, presentedApiKey } from '../auth/api-key';
import { GuardedLookups } from '../auth/guarded-lookups';
import { fingerprint } from '../auth/introspection-cache';
import { KeyIntrospectionClient } from '../auth/key-introspection.client';
import { GatewayConfig } from '../config/gateway.config';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { rateLimited, setRateLimitHeaders } from '../rate-limit/rate-limit-headers';
import { BucketDecision, BucketLimits } from '../rate-limit/token-bucket';
import { routeAccess } from './route-access';

/** A keyed request admitted without waiting: who calls, and the token taken for the call. */
export interface HeldAdmission {
  identity: CallerIdentity;
  decision: BucketDecision;
}

/**
 * What stands between a client and a service, in order: classify the route; on keyed routes check the API key
 * (the identity is attached to the request for the proxy to sign); then take a token from the key's bucket, or
 * from the caller's per-IP bucket on keyless routes. Failed key attempts are counted in a bucket of their own per
 * client address (`KEY_FAILURE_*`), never in the per-IP bucket: a valid key is never refused because of the
 * address it comes from. Once an address's failure bucket is empty, a key that turns out not valid is answered
 * 429 rather than 401 (guessing learns nothing), and the keys that address presents that are not known to be
 * valid are looked up one at a time (`GuardedLookups`), so guessing cannot multiply the introspection calls.
 * It is the `onRequest` hook of the `/api/v1` routes only (health, metrics and docs never reach it); `/api/v1`
 * paths no service owns are limited per IP and then answered with the gateway's 404.
 */
@Injectable()
export class AccessControl {
  private readonly perIp: BucketLimits;
  private readonly failures: BucketLimits;
  private readonly guarded = new GuardedLookups();

  constructor(
    config: GatewayConfig,
    private readonly keys: KeyIntrospectionClient,
    private readonly limiter: RateLimiter,
  ) {
    this.perIp = { capacity: config.PUBLIC_BURST, refillPerMinute: config.PUBLIC_RATE_LIMIT };
    this.failures = { capacity: config.KEY_FAILURE_BURST, refillPerMinute: config.KEY_FAILURE_RATE_LIMIT };
  }

  /**
   * Admits `request` or throws its refusal. `owned`: the request matched a route a service owns (the forwarding
   * routes), not the catch-all of `NOT_OWNED_ROUTES`; each set of routes has a hook of its own that says which.
   */
  async admit(request: HttpRequest, reply: HttpReply, owned: boolean): Promise<void> {
    // Only the gateway speaks for callers: client copies of the internal headers are never forwarded
    // (forwarded-headers.ts) and nothing here reads them.
    if (owned && routeAccess(request.method, pathOf(request.url)) === 'key') await this.admitKey(request, reply);
    else await this.admitByIp(request, reply);
  }

  /**
   * The admission `admit` would give a keyed request, decided now or not at all: when the route needs a key, the
   * request presents one whose active answer is cached here, and this replica's lease of the key's bucket holds a
   * token, that token is taken and the caller's identity and the decision are returned. Anything else (another
   * access class, no key or a malformed one, a key not cached or not active, an empty lease) is `undefined` with
   * nothing taken or counted: the request then goes through `admit`, which decides it as it always has. A request
   * admitted here is one `admit` would have admitted with the same identity and the same token.
   */
  admitHeld(method: string, path: string, headers: IncomingHttpHeaders): HeldAdmission | undefined {
    if (routeAccess(method, path) !== 'key') return undefined;
    const presented = presentedApiKey(headers);
    if (presented.kind !== 'key') return undefined;
    const answer = this.keys.currentAnswer(presented.apiKey, fingerprint(presented.apiKey));
    if (answer?.active !== true) return undefined;
    const identity = identityOf(answer);
    const bucket = keyBucket(identity);
    const decision = this.limiter.takeHeld(bucket.id, bucket.limits);
    return decision && { identity, decision };
  }

  private async admitByIp(request: HttpRequest, reply: HttpReply): Promise<void> {
    const decision = await this.limiter.take(ipBucket(request), this.perIp);
    setRateLimitHeaders(reply, decision);
    if (!decision.allowed) throw rateLimited(decision);
  }

  private async admitKey(request: HttpRequest, reply: HttpReply): Promise<void> {
    const presented = presentedApiKey(request.headers);
    if (presented.kind === 'missing') return this.refuseAttempt(request, reply, apiKeyRequired());
    if (presented.kind === 'malformed') return this.refuseAttempt(request, reply, invalidApiKey());
    let identity: CallerIdentity;
    try {
      identity = identityOf(await this.lookUp(request, presented.apiKey));
    } catch (error) {
      if (error instanceof ApiError && error.getStatus() === 401) return this.refuseAttempt(request, reply, error);
      throw error;
    }
    attachCallerIdentity(request, identity);
    const bucket = keyBucket(identity);
    const decision = await this.limiter.take(bucket.id, bucket.limits);
    setRateLimitHeaders(reply, decision);
    if (!decision.allowed) throw rateLimited(decision);
  }

  /**
   * The service's answer about a key. A key vouched for (known or lately seen active) is looked up at once; so is
   * any key from an address with failed attempts to spare. From an address whose failure bucket is empty, a key is
   * looked up behind that address's other lookups, one at a time; a 429 only when too many already wait there.
   */
  private async lookUp(request: HttpRequest, apiKey: string): Promise<KeyIntrospection> {
    const id = fingerprint(apiKey);
    const ask = () => this.keys.introspect(apiKey, id, request.id);
    if (this.keys.vouchedFor(id)) return ask();
    const address = clientAddress(request);
    const failures = await this.limiter.take(failureBucket(address), this.failures, 0);
    if (failures.allowed) return ask();
    const guarded = this.guarded.run(address, ask);
    if (!guarded) throw rateLimited(failures);
    return guarded;
  }

  /** A failed key attempt takes a token from the address's failure bucket; once it is empty the answer is 429. */
  private async refuseAttempt(request: HttpRequest, reply: HttpReply, refusal: ApiError): Promise<never> {
    const decision = await this.limiter.take(failureBucket(clientAddress(request)), this.failures);
    setRateLimitHeaders(reply, decision);
    throw decision.allowed ? refusal : rateLimited(decision);
  }
}

/** The catch-all routes of `/api/v1` paths no service owns (limited per IP, then answered 404). */
export const NOT_OWNED_ROUTES: readonly string[] = ['/api/v1', '/api/v1/*'];

/** The path of a request target, without its query. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** The client's address: the socket's, or what the proxies `TRUST_PROXY` counts say it is. */
function clientAddress(request: HttpRequest): string {
  const ip = request.ip ?? 'unknown';
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

/** The per-IP bucket of keyless routes. */
function ipBucket(request: HttpRequest): string {
  return `ip:${clientAddress(request)}`;
}

const keyBuckets = new WeakMap<CallerIdentity, { id: string; limits: BucketLimits }>();

/**
 * A key's bucket: `key:<keyId>`, its burst and rate. Made once per identity (one per cached introspection answer),
 * not per call.
 */
function keyBucket(identity: CallerIdentity): { id: string; limits: BucketLimits } {
  let bucket = keyBuckets.get(identity);
  if (bucket === undefined) {
    bucket = {
      id: `key:${identity.keyId}`,
      limits: { capacity: identity.burst, refillPerMinute: identity.rateLimit },
    };
    keyBuckets.set(identity, bucket);
  }
  return bucket;
}

/** The bucket of an address's failed key attempts. */
function failureBucket(address: string): string {
  return `keyfail:${address}`;
}
