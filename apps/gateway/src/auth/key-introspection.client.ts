import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { ErrorCode, KEY_TIERS, KeyIntrospection, isAccount } from '@rp/contracts';
import { ApiError, HttpClient, UpstreamError } from '@rp/platform';
import { GatewayConfig } from '../config/gateway.config';
import { internalCallHeaders } from '../routing/internal-call';
import { IntrospectionCache, fingerprint } from './introspection-cache';

export const INTROSPECTION_PATH = '/internal/keys/introspect';
const INTROSPECTION_TIMEOUT_MS = 2000;
/** How long a key seen active is vouched for (its lookups never wait behind guesses from its address). */
const VOUCHED_FOR_MS = 10 * 60_000;
const MAX_VOUCHED = 10_000;

/**
 * Asks the subscription service about an API key (`POST /internal/keys/introspect`, signed with the internal
 * token, no identity) through an in-process cache. No answer, or one that is not an introspection, is a 503.
 */
@Injectable()
export class KeyIntrospectionClient {
  private readonly logger = new Logger(KeyIntrospectionClient.name);
  private readonly cache: IntrospectionCache;
  private readonly url: string;
  /** Fingerprints of keys the service recently answered active for, until when; the oldest goes first. */
  private readonly vouched = new Map<string, number>();

  constructor(
    private readonly http: HttpClient,
    private readonly config: GatewayConfig,
  ) {
    this.cache = new IntrospectionCache({ activeTtlMs: config.KEY_CACHE_TTL_MS });
    this.url = `${config.SUBSCRIPTION_URL.replace(/\/+$/, '')}${INTROSPECTION_PATH}`;
  }

  /** True when the key (by its fingerprint) is known to be active right now, without asking anyone. */
  knownActive(id: string): boolean {
    return this.cache.cached(id)?.active === true;
  }

  /**
   * True when the key is known active, or was answered active within the last 10 minutes: such a key is not being
   * guessed, so its lookup is never held back by what others do from its address. (It is still looked up: this
   * vouches for nothing but that.)
   */
  vouchedFor(id: string): boolean {
    return this.knownActive(id) || (this.vouched.get(id) ?? 0) > Date.now();
  }

  /**
   * The cached answer about `apiKey` (fingerprint `id`, expiry applied) while it is fresh, without waiting; else
   * `undefined`. Once it nears the end of `KEY_CACHE_TTL_MS`, the service is asked again in the background
   * (refresh-ahead), so a key in use keeps its calls on the fast path across the re-check.
   */
  currentAnswer(apiKey: string, id: string): KeyIntrospection | undefined {
    return this.cache.cachedRefreshing(apiKey, id, this.askInBackground);
  }

  /** A re-check nobody waits for: its own request id. */
  private readonly askInBackground = (apiKey: string): Promise<KeyIntrospection> =>
    this.ask(apiKey, fingerprint(apiKey), randomUUID());

  /** What the subscription service says about `apiKey`, whose fingerprint (`fingerprint()`) is `id`. */
  introspect(apiKey: string, id: string, requestId: string): Promise<KeyIntrospection> {
    return this.cache.lookup(apiKey, id, (key) => this.ask(key, id, requestId));
  }

  private async ask(apiKey: string, id: string, requestId: string): Promise<KeyIntrospection> {
    // The exact text sent is the text whose hash is signed.
    const question = JSON.stringify({ apiKey });
    const headers = {
      'content-type': 'application/json',
      ...internalCallHeaders('POST', INTROSPECTION_PATH, requestId, this.config.INTERNAL_TOKEN, question),
    };
    let response: Response;
    try {
      response = await this.http.fetch(this.url, {
        method: 'POST',
        headers,
        body: question,
        timeoutMs: INTROSPECTION_TIMEOUT_MS,
      });
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      this.logger.warn(`key introspection failed: ${error.message}`);
      throw unavailable();
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok || !isKeyIntrospection(body)) {
      this.logger.error(`key introspection answered ${response.status} without an introspection`);
      throw unavailable();
    }
    if (body.active) this.vouch(id);
    return body;
  }

  private vouch(id: string): void {
    this.vouched.delete(id);
    if (this.vouched.size >= MAX_VOUCHED) {
      const oldest = this.vouched.keys().next();
      if (!oldest.done) this.vouched.delete(oldest.value);
    }
    this.vouched.set(id, Date.now() + VOUCHED_FOR_MS);
  }
}

function unavailable(): ApiError {
  return new ApiError(503, ErrorCode.SERVICE_UNAVAILABLE, 'API keys cannot be checked right now', {
    headers: { 'Retry-After': '5' },
  });
}

/** What the gateway accepts as an introspection answer: anything else is treated as no answer (503). */
export function isKeyIntrospection(value: unknown): value is KeyIntrospection {
  if (typeof value !== 'object' || value === null) return false;
  const answer = value as Record<string, unknown>;
  if (answer['active'] === false) return ['unknown', 'expired', 'revoked'].includes(answer['reason'] as string);
  return (
    answer['active'] === true &&
    typeof answer['keyId'] === 'string' &&
    answer['keyId'] !== '' &&
    (KEY_TIERS as readonly unknown[]).includes(answer['tier']) &&
    isPositiveNumber(answer['rateLimit']) &&
    isPositiveNumber(answer['burst']) &&
    typeof answer['expiresAt'] === 'string' &&
    !Number.isNaN(Date.parse(answer['expiresAt'])) &&
    (answer['email'] === null || typeof answer['email'] === 'string') &&
    isAccount(answer['account'])
  );
}

function isPositiveNumber(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
