import { CallerIdentity, KeyIntrospection, SubscriptionErrorCode, looksLikeApiKey } from '@rp/contracts';
import { ApiError } from '@rp/platform';
import type { IncomingHttpHeaders } from 'node:http';

/** What a request offers as its API key. */
export type PresentedKey = { kind: 'missing' } | { kind: 'malformed' } | { kind: 'key'; apiKey: string };

/** `Authorization: Bearer <key>` first, else `X-API-Key: <key>`; a value not shaped like a key is `malformed`. */
export function presentedApiKey(headers: IncomingHttpHeaders): PresentedKey {
  const bearer = /^Bearer(?:[ \t]+(.*))?$/i.exec(headers.authorization ?? '')?.[1]?.trim();
  const header = headers['x-api-key'];
  const value = bearer || (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return { kind: 'missing' };
  return looksLikeApiKey(value) ? { kind: 'key', apiKey: value } : { kind: 'malformed' };
}

export function apiKeyRequired(): ApiError {
  return new ApiError(
    401,
    SubscriptionErrorCode.API_KEY_REQUIRED,
    'An API key is required: send Authorization: Bearer <key> or X-API-Key: <key>',
    { headers: { 'WWW-Authenticate': 'Bearer' } },
  );
}

export function invalidApiKey(): ApiError {
  return new ApiError(401, SubscriptionErrorCode.INVALID_API_KEY, 'The API key is not valid', {
    headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
  });
}

export function keyExpired(expiresAt?: string): ApiError {
  return new ApiError(
    401,
    SubscriptionErrorCode.KEY_EXPIRED,
    expiresAt ? `The API key expired at ${expiresAt}` : 'The API key has expired',
    { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } },
  );
}

/** One identity object per cached answer, so what is derived from it (its signed encoding) is derived once. */
const identities = new WeakMap<KeyIntrospection, CallerIdentity>();

/** The identity an introspection vouches for, or the 401 that answers a key that is not active. */
export function identityOf(answer: KeyIntrospection): CallerIdentity {
  if (!answer.active) throw answer.reason === 'expired' ? keyExpired(answer.expiresAt) : invalidApiKey();
  let identity = identities.get(answer);
  if (!identity) {
    const { keyId, tier, rateLimit, burst, expiresAt, email, account } = answer;
    identity = { keyId, tier, rateLimit, burst, expiresAt, email, account };
    identities.set(answer, identity);
  }
  return identity;
}
