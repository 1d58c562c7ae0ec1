import { type Hash, createHash, hash as oneShotHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { CallerIdentity, KEY_TIERS, isAccount } from '@rp/contracts';
import { REQUEST_ID_HEADER } from '../logging/request-context';

export const INTERNAL_TIMESTAMP_HEADER = 'x-rp-timestamp';
export const INTERNAL_NONCE_HEADER = 'x-rp-nonce';
export const INTERNAL_BODY_HASH_HEADER = 'x-rp-content-sha256';
export const INTERNAL_IDENTITY_HEADER = 'x-rp-identity';
export const INTERNAL_SIGNATURE_HEADER = 'x-rp-signature';

/** Headers only the gateway may set; it removes any copy a client sends before it adds its own. */
export const INTERNAL_HEADERS = [
  INTERNAL_TIMESTAMP_HEADER,
  INTERNAL_NONCE_HEADER,
  INTERNAL_BODY_HASH_HEADER,
  INTERNAL_IDENTITY_HEADER,
  INTERNAL_SIGNATURE_HEADER,
] as const;

/** How far a signed timestamp may be from the receiver's clock, either way. */
export const INTERNAL_CLOCK_WINDOW_MS = 60_000;

/** The version tag of the signature: `v2=` + hex. v1 (no body hash, no nonce) is no longer accepted. */
const SIGNATURE_VERSION = 'v2';
const SIGNATURE_PREFIX = `${SIGNATURE_VERSION}=`;

const NONCE = /^[A-Za-z0-9_-]{16,64}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Random bytes of one nonce (22 base64url characters). */
const NONCE_BYTES = 16;
/** Nonces drawn from one call to the random source: one call per 256 signed requests instead of one per request. */
const NONCES_PER_DRAW = 256;
let nonceBytes = Buffer.alloc(0);
let nonceOffset = 0;

/**
 * A fresh one-time nonce: 16 bytes of the CSPRNG, base64url. The bytes come from a block drawn 256 nonces at a time
 * (as Node's `randomUUID` caches its entropy); each byte is used once, so nonces stay as unpredictable and as unique.
 */
export function freshNonce(): string {
  if (nonceOffset + NONCE_BYTES > nonceBytes.length) {
    nonceBytes = randomBytes(NONCE_BYTES * NONCES_PER_DRAW);
    nonceOffset = 0;
  }
  const nonce = nonceBytes.toString('base64url', nonceOffset, nonceOffset + NONCE_BYTES);
  nonceOffset += NONCE_BYTES;
  return nonce;
}

/** sha256 (hex) of the exact bytes of a body; an absent body hashes as an empty one. */
export function bodySha256(body?: Uint8Array | string): string {
  if (body === undefined || body.length === 0) return EMPTY_BODY_SHA256;
  return oneShotHash('sha256', body, 'hex');
}

export const EMPTY_BODY_SHA256 = createHash('sha256').digest('hex');

export interface InternalRequestToSign {
  token: string;
  method: string;
  /** The path as the service will see it (`originalUrl`), query included. */
  path: string;
  requestId: string;
  /** Who the gateway vouches for; omitted for the gateway's own calls (key introspection). */
  identity?: CallerIdentity;
  /** The exact bytes that will be sent as the body (omitted: none), or their `bodySha256()` when already known. */
  body?: Uint8Array | string | { sha256: string };
  now?: number;
  /** A fresh random nonce when omitted (tests choose one). */
  nonce?: string;
}

export interface InternalRequestToVerify {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /**
   * The body bytes, when the caller holds them (tests, stand-ins): their hash is checked too. A service reading a
   * body as a stream checks it as it arrives (`internalAuthHooks`).
   */
  body?: Uint8Array | string;
}

export interface VerifiedInternalRequest {
  ok: true;
  identity?: CallerIdentity;
  /** The one-time nonce: a receiver accepts it once while `validUntil` has not passed. */
  nonce: string;
  /** The body hash the gateway signed; the body that arrives must hash to it. */
  bodySha256: string;
  /** Epoch ms after which the timestamp is outside the clock window (and a replay would be refused anyway). */
  validUntil: number;
}

export type InternalVerification = VerifiedInternalRequest | { ok: false; reason: string };

/**
 * The headers that vouch for a call from the gateway: `x-rp-timestamp` (Unix seconds), `x-rp-nonce` (random, used
 * once), `x-rp-content-sha256` (hex sha256 of the exact body bytes), `x-rp-identity` (base64url JSON of the
 * caller, when there is one) and `x-rp-signature`: `v2=` + hex HMAC-SHA256 with the internal token over `v2`,
 * timestamp, nonce, method, path, request id, identity header and body hash, joined by newlines.
 */
export function signInternalRequest(request: InternalRequestToSign): Record<string, string> {
  const headers: Record<string, string> = {};
  writeInternalSignature(headers, request);
  return headers;
}

/**
 * The same headers as `signInternalRequest`, written into `headers` (the gateway's copy of the client's headers,
 * from which any client copy of them was removed): no object of their own per forwarded call.
 */
export function writeInternalSignature(
  headers: Record<string, string | string[]>,
  request: InternalRequestToSign,
): void {
  const timestamp = String(Math.floor((request.now ?? Date.now()) / 1000));
  const nonce = request.nonce ?? freshNonce();
  const identity = request.identity ? encodeCallerIdentity(request.identity) : '';
  const body = request.body;
  const hash = typeof body === 'object' && 'sha256' in body ? body.sha256 : bodySha256(body);
  headers[INTERNAL_TIMESTAMP_HEADER] = timestamp;
  headers[INTERNAL_NONCE_HEADER] = nonce;
  headers[INTERNAL_BODY_HASH_HEADER] = hash;
  if (identity) headers[INTERNAL_IDENTITY_HEADER] = identity;
  headers[INTERNAL_SIGNATURE_HEADER] =
    SIGNATURE_PREFIX +
    signature(request.token, [
      timestamp,
      nonce,
      request.method.toUpperCase(),
      request.path,
      request.requestId,
      identity,
      hash,
    ]);
}

/**
 * Checks the signature (timing-safe) and the clock window, then reads the identity the gateway signed. It does not
 * remember nonces: the receiver claims the returned nonce in its `NonceStore`.
 */
export function verifyInternalRequest(
  token: string,
  request: InternalRequestToVerify,
  now = Date.now(),
): InternalVerification {
  const timestamp = single(request.headers[INTERNAL_TIMESTAMP_HEADER]);
  const nonce = single(request.headers[INTERNAL_NONCE_HEADER]);
  const hash = single(request.headers[INTERNAL_BODY_HASH_HEADER]);
  const signed = single(request.headers[INTERNAL_SIGNATURE_HEADER]);
  const identity = single(request.headers[INTERNAL_IDENTITY_HEADER]) ?? '';
  const requestId = single(request.headers[REQUEST_ID_HEADER]) ?? '';
  if (!timestamp || !signed) return { ok: false, reason: 'not signed' };
  if (!signed.startsWith(SIGNATURE_PREFIX)) return { ok: false, reason: 'unsupported signature version' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'malformed timestamp' };
  if (!nonce || !NONCE.test(nonce)) return { ok: false, reason: 'malformed nonce' };
  if (!hash || !SHA256_HEX.test(hash)) return { ok: false, reason: 'malformed body hash' };
  const signedAt = Number(timestamp) * 1000;
  if (Math.abs(now - signedAt) > INTERNAL_CLOCK_WINDOW_MS) {
    return { ok: false, reason: 'timestamp outside the clock window' };
  }
  const expected = Buffer.from(
    SIGNATURE_PREFIX +
      signature(token, [timestamp, nonce, request.method.toUpperCase(), request.path, requestId, identity, hash]),
  );
  const given = Buffer.from(signed);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad signature' };
  }
  if (request.body !== undefined && bodySha256(request.body) !== hash) {
    return { ok: false, reason: 'body does not match its signed hash' };
  }
  const verified: VerifiedInternalRequest = {
    ok: true,
    nonce,
    bodySha256: hash,
    validUntil: signedAt + INTERNAL_CLOCK_WINDOW_MS,
  };
  if (!identity) return verified;
  const caller = decodeCallerIdentity(identity);
  return caller ? { ...verified, identity: caller } : { ok: false, reason: 'malformed identity' };
}

const encodings = new WeakMap<CallerIdentity, string>();

/**
 * base64url JSON of the identity, every field of it (the signature covers this text, so a service can trust each,
 * the account above all); remembered per identity object (the gateway signs one per cached key).
 */
export function encodeCallerIdentity(identity: CallerIdentity): string {
  let encoded = encodings.get(identity);
  if (encoded === undefined) {
    const { keyId, tier, rateLimit, burst, expiresAt, email, account } = identity;
    encoded = Buffer.from(JSON.stringify({ keyId, tier, rateLimit, burst, expiresAt, email, account })).toString(
      'base64url',
    );
    encodings.set(identity, encoded);
  }
  return encoded;
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
    (candidate['email'] === null || typeof candidate['email'] === 'string') &&
    isAccount(candidate['account'])
  );
}

/** SHA-256's block size: an HMAC key is padded (or first hashed) to it. */
const SHA256_BLOCK_BYTES = 64;

/**
 * HMAC-SHA256 keyed with one token (RFC 2104): the hash states after the key's inner and outer pads, computed
 * once. A signature copies them, so it hashes only its own text; `createHmac` instead looks the digest and the MAC
 * up in OpenSSL's provider tables and hashes both pads again on every call (a third of the signature's cost on a
 * loaded gateway, docs/benchmarks.md). The result is the same HMAC (a test compares it with `createHmac`).
 */
class TokenHmac {
  private readonly inner: Hash;
  private readonly outer: Hash;

  constructor(readonly token: string) {
    let key = Buffer.from(token, 'utf8');
    if (key.length > SHA256_BLOCK_BYTES) key = createHash('sha256').update(key).digest();
    const innerPad = Buffer.alloc(SHA256_BLOCK_BYTES, 0x36);
    const outerPad = Buffer.alloc(SHA256_BLOCK_BYTES, 0x5c);
    for (let i = 0; i < key.length; i += 1) {
      innerPad[i] ^= key[i];
      outerPad[i] ^= key[i];
    }
    this.inner = createHash('sha256').update(innerPad);
    this.outer = createHash('sha256').update(outerPad);
  }

  hex(text: string): string {
    // The inner digest passes as a 'binary' (latin1) string, one char per byte: no Buffer between the two hashes.
    const inner = this.inner.copy().update(text).digest('binary');
    return this.outer.copy().update(inner, 'binary').digest('hex');
  }
}

/** The HMAC of the process's token, made once (a process has one token). */
let tokenHmac: TokenHmac | undefined;

/** `hmacSha256Hex(token, text)`: the hex HMAC-SHA256 of `text` with `token` as the key. */
export function hmacSha256Hex(token: string, text: string): string {
  if (tokenHmac?.token !== token) tokenHmac = new TokenHmac(token);
  return tokenHmac.hex(text);
}

function signature(token: string, parts: string[]): string {
  return hmacSha256Hex(token, `${SIGNATURE_VERSION}\n${parts.join('\n')}`);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
