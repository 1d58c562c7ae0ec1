import { CallerIdentity } from '@rp/contracts';
import {
  INTERNAL_HEADERS,
  INTERNAL_IDENTITY_HEADER,
  INTERNAL_SIGNATURE_HEADER,
  INTERNAL_TIMESTAMP_HEADER,
  encodeCallerIdentity,
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
};

function signed(overrides: { identity?: CallerIdentity } = { identity: IDENTITY }) {
  const headers = signInternalRequest({
    token: TOKEN,
    method: 'post',
    path: '/api/v1/txb/build?dry=1',
    requestId: 'req-1',
    identity: overrides.identity,
    now: NOW,
  });
  return {
    method: 'POST',
    path: '/api/v1/txb/build?dry=1',
    headers: { ...headers, 'x-request-id': 'req-1' } as Record<string, string>,
  };
}

describe('internal request signatures', () => {
  it('produces the three internal headers, a v1 hex HMAC, and Unix seconds', () => {
    const { headers } = signed();
    expect(Object.keys(headers).sort()).toEqual([...INTERNAL_HEADERS, 'x-request-id'].sort());
    expect(headers[INTERNAL_TIMESTAMP_HEADER]).toBe(String(NOW / 1000));
    expect(headers[INTERNAL_SIGNATURE_HEADER]).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(headers[INTERNAL_IDENTITY_HEADER]).toBe(encodeCallerIdentity(IDENTITY));
  });

  it('verifies its own signature and returns the identity it carries', () => {
    expect(verifyInternalRequest(TOKEN, signed(), NOW + 5_000)).toEqual({ ok: true, identity: IDENTITY });
  });

  it('signs a call without identity (the gateway calling for itself)', () => {
    const request = signed({});
    expect(request.headers[INTERNAL_IDENTITY_HEADER]).toBeUndefined();
    expect(verifyInternalRequest(TOKEN, request, NOW)).toEqual({ ok: true });
  });

  it.each([
    [
      'identity',
      (r: ReturnType<typeof signed>) =>
        (r.headers[INTERNAL_IDENTITY_HEADER] = encodeCallerIdentity({ ...IDENTITY, keyId: 'key-2' })),
    ],
    ['path', (r: ReturnType<typeof signed>) => (r.path = '/api/v1/txb/build?dry=0')],
    ['method', (r: ReturnType<typeof signed>) => (r.method = 'DELETE')],
    ['request id', (r: ReturnType<typeof signed>) => (r.headers['x-request-id'] = 'req-2')],
    ['timestamp', (r: ReturnType<typeof signed>) => (r.headers[INTERNAL_TIMESTAMP_HEADER] = String(NOW / 1000 + 1))],
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

  it('refuses a correctly signed identity that is not a caller identity', () => {
    const headers = signInternalRequest({
      token: TOKEN,
      method: 'GET',
      path: '/x',
      requestId: 'r',
      identity: { ...IDENTITY, tier: 'gold' } as unknown as CallerIdentity,
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
