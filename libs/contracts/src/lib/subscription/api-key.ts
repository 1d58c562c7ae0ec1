/** Tiers of an API key: bought over x402 (`standard`) or issued by an operator (`partner`). */
export const KEY_TIERS = ['standard', 'partner'] as const;
export type KeyTier = (typeof KEY_TIERS)[number];

/** Standard tier limits (spec, Limits): 60 requests per minute, burst 120. */
export const STANDARD_RATE_LIMIT = 60;
export const STANDARD_BURST = 120;

/** `rp_live_` (pubnet) or `rp_test_` (testnet) and 32 base62 characters. */
export const API_KEY_PATTERN = /^rp_(live|test)_[0-9A-Za-z]{32}$/;

export function looksLikeApiKey(value: unknown): value is string {
  return typeof value === 'string' && API_KEY_PATTERN.test(value);
}

/** Who is calling, as the gateway vouches for it to a service (internal identity header). */
export interface CallerIdentity {
  keyId: string;
  tier: KeyTier;
  /** Requests per minute: the bucket's refill rate. */
  rateLimit: number;
  /** Bucket capacity. */
  burst: number;
  expiresAt: string;
  /** The contact the key was bought or issued with: never an account (two buyers with one email are two). */
  email: string | null;
  /** What the key's data belongs to: `wallet:<G...>`, `partner:<name>` (see `account.ts`). */
  account: string;
}

/**
 * Answer of the subscription service's internal introspection route (`POST /internal/keys/introspect`, body
 * `{ apiKey }`), which the gateway calls for every key it has not seen in the last few seconds.
 */
export type KeyIntrospection =
  | ({ active: true } & CallerIdentity)
  | { active: false; reason: 'unknown' | 'expired' | 'revoked'; expiresAt?: string };
