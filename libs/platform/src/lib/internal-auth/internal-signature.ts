import { createHmac, timingSafeEqual } from 'node:crypto';
import { CallerIdentity, KEY_TIERS } from '@rp/contracts';
import { REQUEST_ID_HEADER } from '../logging/request-context';

export const INTERNAL_TIMESTAMP_HEADER = 'x-rp-timestamp';
export const INTERNAL_IDENTITY_HEADER = 'x-rp-identity';
export const INTERNAL_SIGNATURE_HEADER = 'x-rp-signature';

/** Headers only the gateway may set; it removes any copy a client sends before it adds its own. */
export const INTERNAL_HEADERS = [
  INTERNAL_TIMESTAMP_HEADER,
  INTERNAL_IDENTITY_HEADER,
  INTERNAL_SIGNATURE_HEADER,
] as const;

/** How far a signed timestamp may be from the receiver's clock, either way. */
export const INTERNAL_CLOCK_WINDOW_MS = 60_000;

const SIGNATURE_VERSION = 'v1=';

export interface InternalRequestToSign {
  token: string;
  method: string;
  /** The path as the service will see it (`originalUrl`), query included. */
  path: string;
  requestId: string;
  /** Who the gateway vouches for; omitted for the gateway's own calls (key introspection). */
  identity?: CallerIdentity;
  now?: number;
}

export interface InternalRequestToVerify {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
}

export type InternalVerification = { ok: true; identity?: CallerIdentity } | { ok: false; reason: string };

/**
 * The headers that vouch for a call from the gateway: `x-rp-timestamp` (Unix seconds), `x-rp-identity` (base64url
 * JSON of the caller, when there is one) and `x-rp-signature`: `v1=` + hex HMAC-SHA256 with the internal token over
 * timestamp, method, path, request id and identity header, joined by newlines.
 */
export function signInternalRequest(request: InternalRequestToSign): Record<string, string> {
  const timestamp = String(Math.floor((request.now ?? Date.now()) / 1000));
  const identity = request.identity ? encodeCallerIdentity(request.identity) : '';
  const headers: Record<string, string> = { [INTERNAL_TIMESTAMP_HEADER]: timestamp };
  if (identity) headers[INTERNAL_IDENTITY_HEADER] = identity;
  headers[INTERNAL_SIGNATURE_HEADER] =
    SIGNATURE_VERSION +
    signature(request.token, [timestamp, request.method.toUpperCase(), request.path, request.requestId, identity]);
  return headers;
}

/** Checks the signature (timing-safe) and the clock window, then reads the identity the gateway signed. */
export function verifyInternalRequest(
  token: string,
  request: InternalRequestToVerify,
  now = Date.now(),
): InternalVerification {
  const timestamp = single(request.headers[INTERNAL_TIMESTAMP_HEADER]);
  const signed = single(request.headers[INTERNAL_SIGNATURE_HEADER]);
  const identity = single(request.headers[INTERNAL_IDENTITY_HEADER]) ?? '';
  const requestId = single(request.headers[REQUEST_ID_HEADER]) ?? '';
  if (!timestamp || !signed) return { ok: false, reason: 'not signed' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'malformed timestamp' };
  if (Math.abs(now - Number(timestamp) * 1000) > INTERNAL_CLOCK_WINDOW_MS) {
    return { ok: false, reason: 'timestamp outside the clock window' };
  }
  const expected = Buffer.from(
    SIGNATURE_VERSION + signature(token, [timestamp, request.method.toUpperCase(), request.path, requestId, identity]),
  );
  const given = Buffer.from(signed);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad signature' };
  }
  if (!identity) return { ok: true };
  const caller = decodeCallerIdentity(identity);
  return caller ? { ok: true, identity: caller } : { ok: false, reason: 'malformed identity' };
}

export function encodeCallerIdentity(identity: CallerIdentity): string {
  const { keyId, tier, rateLimit, burst, expiresAt, email } = identity;
  return Buffer.from(JSON.stringify({ keyId, tier, rateLimit, burst, expiresAt, email })).toString('base64url');
}

/** The identity in an `x-rp-identity` value, or `undefined` when it is not one. */
export function decodeCallerIdentity(value: string): CallerIdentity | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  return isCallerIdentity(parsed) ? parsed : undefined;
}

function isCallerIdentity(value: unknown): value is CallerIdentity {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate['keyId'] === 'string' &&
    candidate['keyId'] !== '' &&
    (KEY_TIERS as readonly unknown[]).includes(candidate['tier']) &&
    typeof candidate['rateLimit'] === 'number' &&
    typeof candidate['burst'] === 'number' &&
    typeof candidate['expiresAt'] === 'string' &&
    (candidate['email'] === null || typeof candidate['email'] === 'string')
  );
}

function signature(token: string, parts: string[]): string {
  return createHmac('sha256', token).update(parts.join('\n')).digest('hex');
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
