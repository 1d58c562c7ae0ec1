import { CallerIdentity } from '@rp/contracts';
import { createHash, createHmac } from 'node:crypto';
import {
  EMPTY_BODY_SHA256,
  INTERNAL_BODY_HASH_HEADER,
  INTERNAL_HEADERS,
  INTERNAL_IDENTITY_HEADER,
  INTERNAL_NONCE_HEADER,
  INTERNAL_SIGNATURE_HEADER,
  INTERNAL_TIMESTAMP_HEADER,
  bodySha256,
  encodeCallerIdentity,
  freshNonce,
  hmacSha256Hex,
  signInternalRequest,
  verifyInternalRequest,
} from './internal-signature';

const TOKEN = 'internal-token-0123456789';
const NOW = 1_800_000_000_000;
const IDENTITY: CallerIdentity = {
  keyId: 'key-1',
  tier: 'standard',
  rateLimit: 60,
  burst: 120,
  expiresAt: '2027-01-01T00:00:00.000Z',
  email: 'a@b.co',
  account: 'wallet:GDRXE2BQUC3AZNPVFSCEZ76NJ3WWL25FYFK6RGZGIEKWE4SOOHSUJUJ6',
};

const BODY = '{"action":"REPAY"}';

function signed(overrides: { identity?: CallerIdentity } = { identity: IDENTITY }) {
  const headers = signInternalRequest({
    token: TOKEN,
    method: 'post',
    path: '/api/v1/txb/build?dry=1',
    requestId: 'req-1',
    identity: overrides.identity,
    body: BODY,
    now: NOW,
  });
  return {
    method: 'POST',
    path: '/api/v1/txb/build?dry=1',
    headers: { ...headers, 'x-request-id': 'req-1' } as Record<string, string>,
  };
}

describe('hmacSha256Hex', () => {
  it("is node's HMAC-SHA256 for keys shorter than, as long as and longer than a block, and any text", () => {
    const tokens = ['k', 'x'.repeat(63), 'y'.repeat(64), 'z'.repeat(65), 'é-clé-ü'.repeat(30), TOKEN];
    const texts = ['', 'v2', 'a'.repeat(1000), 'ünïcödé\n€', 'v2\n1800000000\nnonce\nGET\n/api/v1/keys/me'];
    for (const token of tokens) {
      for (const text of texts) {
        expect(hmacSha256Hex(token, text)).toBe(createHmac('sha256', token).update(text).digest('hex'));
      }
    }
  });

  it('keeps no state between calls with the same key, nor after a change of key', () => {
    const first = hmacSha256Hex(TOKEN, 'same text');
    expect(hmacSha256Hex(TOKEN, 'same text')).toBe(first);
    expect(hmacSha256Hex('another token', 'same text')).not.toBe(first);
    expect(hmacSha256Hex(TOKEN, 'same text')).toBe(first);
  });
});

describe('internal request signatures', () => {
  it('produces the internal headers: Unix seconds, a fresh nonce, the body hash and a v2 hex HMAC', () => {
    const { headers } = signed();
    expect(Object.keys(headers).sort()).toEqual([...INTERNAL_HEADERS, 'x-request-id'].sort());
    expect(headers[INTERNAL_TIMESTAMP_HEADER]).toBe(String(NOW / 1000));
    expect(headers[INTERNAL_NONCE_HEADER]).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(signed().headers[INTERNAL_NONCE_HEADER]).not.toBe(headers[INTERNAL_NONCE_HEADER]);
    expect(headers[INTERNAL_BODY_HASH_HEADER]).toBe(createHash('sha256').update(BODY).digest('hex'));
    expect(headers[INTERNAL_SIGNATURE_HEADER]).toMatch(/^v2=[0-9a-f]{64}$/);
    expect(headers[INTERNAL_IDENTITY_HEADER]).toBe(encodeCallerIdentity(IDENTITY));
  });

  it('draws nonces that are well-formed and never repeat, across refills of their random block', () => {
    const nonces = Array.from({ length: 2000 }, () => freshNonce());
    expect(nonces.every((nonce) => /^[A-Za-z0-9_-]{22}$/.test(nonce))).toBe(true);
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  it('signs every field of the identity, the account included', () => {
    const decoded = JSON.parse(Buffer.from(encodeCallerIdentity(IDENTITY), 'base64url').toString('utf8'));
    expect(decoded).toEqual(IDENTITY);
  });

  it('signs exactly the documented string: v2, timestamp, nonce, method, path, request id, identity, body hash', () => {
    const { headers } = signed();
    const canonical = [
      'v2',
      String(NOW / 1000),
      headers[INTERNAL_NONCE_HEADER],
      'POST',
      '/api/v1/txb/build?dry=1',
      'req-1',
      encodeCallerIdentity(IDENTITY),
      bodySha256(BODY),
    ].join('\n');
    expect(headers[INTERNAL_SIGNATURE_HEADER]).toBe(
      `v2=${createHmac('sha256', TOKEN).update(canonical).digest('hex')}`,
    );
  });

  it('verifies its own signature and returns the identity, nonce, body hash and end of validity', () => {
    const request = signed();
    expect(verifyInternalRequest(TOKEN, request, NOW + 5_000)).toEqual({
      ok: true,
      identity: IDENTITY,
      nonce: request.headers[INTERNAL_NONCE_HEADER],
      bodySha256: bodySha256(BODY),
      validUntil: NOW + 60_000,
    });
  });

  it('checks the body against its signed hash when the verifier holds it', () => {
    expect(verifyInternalRequest(TOKEN, { ...signed(), body: BODY }, NOW).ok).toBe(true);
    expect(verifyInternalRequest(TOKEN, { ...signed(), body: Buffer.from(BODY) }, NOW).ok).toBe(true);
    expect(verifyInternalRequest(TOKEN, { ...signed(), body: '{"action":"UNWIND"}' }, NOW)).toEqual({
      ok: false,
      reason: 'body does not match its signed hash',
    });
  });

  it('hashes an absent body as an empty one', () => {
    expect(bodySha256()).toBe(EMPTY_BODY_SHA256);
    expect(bodySha256('')).toBe(EMPTY_BODY_SHA256);
    expect(EMPTY_BODY_SHA256).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('signs a call without identity (the gateway calling for itself)', () => {
    const request = signed({});
    expect(request.headers[INTERNAL_IDENTITY_HEADER]).toBeUndefined();
    expect(verifyInternalRequest(TOKEN, request, NOW)).toMatchObject({ ok: true });
    expect(verifyInternalRequest(TOKEN, request, NOW)).not.toHaveProperty('identity');
  });

  it.each([
    [
      'identity',
      (r: ReturnType<typeof signed>) =>
        (r.headers[INTERNAL_IDENTITY_HEADER] = encodeCallerIdentity({ ...IDENTITY, keyId: 'key-2' })),
    ],
    [
      "identity's account",
      (r: ReturnType<typeof signed>) =>
        (r.headers[INTERNAL_IDENTITY_HEADER] = encodeCallerIdentity({ ...IDENTITY, account: 'partner:someone-else' })),
    ],
    ['path', (r: ReturnType<typeof signed>) => (r.path = '/api/v1/txb/build?dry=0')],
    ['method', (r: ReturnType<typeof signed>) => (r.method = 'DELETE')],
    ['request id', (r: ReturnType<typeof signed>) => (r.headers['x-request-id'] = 'req-2')],
    ['timestamp', (r: ReturnType<typeof signed>) => (r.headers[INTERNAL_TIMESTAMP_HEADER] = String(NOW / 1000 + 1))],
    ['nonce', (r: ReturnType<typeof signed>) => (r.headers[INTERNAL_NONCE_HEADER] = 'another-nonce-0123456789')],
    ['body hash', (r: ReturnType<typeof signed>) => (r.headers[INTERNAL_BODY_HASH_HEADER] = bodySha256('{}'))],
  ])('refuses a request whose %s was changed after signing', (_part, tamper) => {
    const request = signed();
    tamper(request);
    expect(verifyInternalRequest(TOKEN, request, NOW)).toEqual({ ok: false, reason: 'bad signature' });
  });

  it('refuses an identity added to a call signed without one', () => {
    const request = signed({});
    request.headers[INTERNAL_IDENTITY_HEADER] = encodeCallerIdentity(IDENTITY);
    expect(verifyInternalRequest(TOKEN, request, NOW)).toMatchObject({ ok: false });
  });

  it('refuses a signature made with another token', () => {
    expect(verifyInternalRequest('another-token-0123456789', signed(), NOW)).toEqual({
      ok: false,
      reason: 'bad signature',
    });
  });

  it('accepts timestamps within 60 s either way and refuses older or newer ones', () => {
    expect(verifyInternalRequest(TOKEN, signed(), NOW + 60_000).ok).toBe(true);
    expect(verifyInternalRequest(TOKEN, signed(), NOW - 60_000).ok).toBe(true);
    expect(verifyInternalRequest(TOKEN, signed(), NOW + 61_000)).toEqual({
      ok: false,
      reason: 'timestamp outside the clock window',
    });
    expect(verifyInternalRequest(TOKEN, signed(), NOW - 61_000).ok).toBe(false);
  });

  it('refuses a v1 signature (no body hash, no nonce)', () => {
    const request = signed();
    request.headers[INTERNAL_SIGNATURE_HEADER] = request.headers[INTERNAL_SIGNATURE_HEADER].replace('v2=', 'v1=');
    expect(verifyInternalRequest(TOKEN, request, NOW)).toEqual({ ok: false, reason: 'unsupported signature version' });
  });

  it('refuses a missing or malformed nonce or body hash', () => {
    const noNonce = signed();
    delete noNonce.headers[INTERNAL_NONCE_HEADER];
    expect(verifyInternalRequest(TOKEN, noNonce, NOW)).toEqual({ ok: false, reason: 'malformed nonce' });
    const shortNonce = signed();
    shortNonce.headers[INTERNAL_NONCE_HEADER] = 'abc';
    expect(verifyInternalRequest(TOKEN, shortNonce, NOW)).toEqual({ ok: false, reason: 'malformed nonce' });
    const badHash = signed();
    badHash.headers[INTERNAL_BODY_HASH_HEADER] = 'not-a-hash';
    expect(verifyInternalRequest(TOKEN, badHash, NOW)).toEqual({ ok: false, reason: 'malformed body hash' });
  });

  it('refuses unsigned calls, malformed timestamps and a truncated signature', () => {
    expect(verifyInternalRequest(TOKEN, { method: 'GET', path: '/x', headers: {} }, NOW)).toEqual({
      ok: false,
      reason: 'not signed',
    });
    const malformed = signed();
    malformed.headers[INTERNAL_TIMESTAMP_HEADER] = 'soon';
    expect(verifyInternalRequest(TOKEN, malformed, NOW)).toEqual({ ok: false, reason: 'malformed timestamp' });
    const truncated = signed();
    truncated.headers[INTERNAL_SIGNATURE_HEADER] = truncated.headers[INTERNAL_SIGNATURE_HEADER].slice(0, 20);
    expect(verifyInternalRequest(TOKEN, truncated, NOW)).toEqual({ ok: false, reason: 'bad signature' });
  });

  it.each([
    ['an unknown tier', { tier: 'gold' }],
    ['no account', { account: undefined }],
    ['an email for an account', { account: 'email:a@b.co' }],
    ['a key id for an account', { account: 'key-1' }],
  ])('refuses a correctly signed identity that is not a caller identity: %s', (_case, change) => {
    const headers = signInternalRequest({
      token: TOKEN,
      method: 'GET',
      path: '/x',
      requestId: 'r',
      identity: { ...IDENTITY, ...change } as unknown as CallerIdentity,
      now: NOW,
    });
    expect(
      verifyInternalRequest(TOKEN, { method: 'GET', path: '/x', headers: { ...headers, 'x-request-id': 'r' } }, NOW),
    ).toEqual({
      ok: false,
      reason: 'malformed identity',
    });
  });
});
