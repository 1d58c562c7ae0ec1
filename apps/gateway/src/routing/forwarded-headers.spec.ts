import type { HttpRequest } from '@rp/platform';
import { forwardedHeaders, hopOf } from './forwarded-headers';

function request(headers: Record<string, string | string[]>, peer = '10.0.0.9'): HttpRequest {
  return {
    headers,
    raw: { socket: { remoteAddress: peer } },
    protocol: 'https',
    host: 'api.example.com',
  } as unknown as HttpRequest;
}

function forwardedOf(from: HttpRequest, internalHeaders: ReadonlySet<string>) {
  return forwardedHeaders(from.headers, hopOf(from), internalHeaders);
}

describe('the headers a service receives', () => {
  it('drops hop-by-hop headers and every name the client lists in Connection', () => {
    const forwarded = forwardedOf(
      request({
        connection: 'keep-alive, X-Private-Hop',
        'keep-alive': 'timeout=5',
        'x-private-hop': 'for the gateway only',
        te: 'trailers',
        trailer: 'x-checksum',
        upgrade: 'h2c',
        'proxy-authorization': 'Basic c2VjcmV0',
        'transfer-encoding': 'chunked',
        host: 'api.example.com',
        expect: '100-continue',
        'content-type': 'application/json',
        'x-request-id': 'r-1',
      }),
      new Set(),
    );
    expect(Object.keys(forwarded).sort()).toEqual([
      'content-type',
      'x-forwarded-for',
      'x-forwarded-host',
      'x-forwarded-proto',
      'x-request-id',
    ]);
  });

  it('keeps the API key and client copies of the internal headers at the edge', () => {
    const forwarded = forwardedOf(
      request({ authorization: 'Bearer rp_test_x', 'x-api-key': 'rp_test_y', 'x-rp-identity': 'forged' }),
      new Set(['x-rp-identity']),
    );
    expect(forwarded).not.toHaveProperty('authorization');
    expect(forwarded).not.toHaveProperty('x-api-key');
    expect(forwarded).not.toHaveProperty('x-rp-identity');
  });

  it("appends this hop's peer to the client's X-Forwarded-For chain and says how the gateway was reached", () => {
    expect(forwardedOf(request({ 'x-forwarded-for': '203.0.113.7' }), new Set())).toMatchObject({
      'x-forwarded-for': '203.0.113.7, 10.0.0.9',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'api.example.com',
    });
    expect(forwardedOf(request({}), new Set())['x-forwarded-for']).toBe('10.0.0.9');
  });
});
