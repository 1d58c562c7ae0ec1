import { IsDuration, IsHttpUrl, ServiceConfig } from '@rp/platform';
import { IsBoolean, IsInt, Max, Min } from 'class-validator';

const positive = { message: '$property must be an integer of at least 1' };
const hops = { message: '$property must be an integer between 0 and 10' };

/** The gateway owns `/api/v1` and forwards each prefix to the service that owns it. */
export class GatewayConfig extends ServiceConfig {
  override PORT = 3000;

  /** Owner of `/api/v1/keys/**`. */
  @IsHttpUrl()
  SUBSCRIPTION_URL = 'http://127.0.0.1:3001';

  /** Owner of `/api/v1/txb/**`. */
  @IsHttpUrl()
  TXB_URL = 'http://127.0.0.1:3002';

  /** Owner of `/api/v1/rms/**`. */
  @IsHttpUrl()
  NOTIFICATIONS_URL = 'http://127.0.0.1:3003';

  /** A service that stays silent this long is answered for with 504. */
  @IsDuration(100)
  UPSTREAM_TIMEOUT_MS = 30_000;

  /** How long an active key's introspection answer is reused (never past the key's expiry). */
  @IsDuration(0)
  KEY_CACHE_TTL_MS = 5000;

  /** Refill of the per-IP bucket of keyless routes (public, admin, webhook), in requests per minute. */
  @IsInt(positive)
  @Min(1, positive)
  PUBLIC_RATE_LIMIT = 60;

  /** Capacity of the per-IP bucket. */
  @IsInt(positive)
  @Min(1, positive)
  PUBLIC_BURST = 120;

  /**
   * Capacity of the per-address bucket of failed key attempts (missing, malformed, unknown, revoked or expired
   * keys). Once it is empty, a key that turns out not valid is answered 429, and keys from that address not known
   * to be valid are looked up one at a time. A valid key never takes from it.
   */
  @IsInt(positive)
  @Min(1, positive)
  KEY_FAILURE_BURST = 20;

  /** Refill of that bucket, in failed attempts per minute. */
  @IsInt(positive)
  @Min(1, positive)
  KEY_FAILURE_RATE_LIMIT = 20;

  /** Reverse proxies in front of the gateway whose `X-Forwarded-For` is believed; 0 = the socket's address. */
  @IsInt(hops)
  @Min(0, hops)
  @Max(10, hops)
  TRUST_PROXY = 0;

  /** A rate-limit call to Redis slower than this counts as Redis down (the in-process bucket decides). */
  @IsDuration(1)
  RATE_LIMIT_REDIS_TIMEOUT_MS = 250;

  /**
   * Most tokens a gateway replica leases from a key's shared bucket at once (never more than a tenth of the bucket):
   * a busy key costs one Redis round trip per lease instead of per call, and may pass its burst by at most one lease
   * per replica. A quiet key leases one at a time (exact). 1 asks Redis for every call.
   */
  @IsInt(positive)
  @Min(1, positive)
  @Max(1000, { message: '$property must be an integer from 1 to 1000' })
  RATE_LIMIT_LEASE = 64;

  /**
   * Forward a keyed `GET` whose key is cached and whose lease holds a token outside Fastify, in one synchronous step
   * (`routing/fast-path.ts`): the same checks and the same answer for less CPU. `false` sends every call through
   * Fastify's forwarding routes.
   */
  @IsBoolean({ message: '$property must be true or false' })
  FORWARD_FAST_PATH = true;
}
