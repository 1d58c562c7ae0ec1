import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp, initApp, rawRequest, requestBytes } from '@rp/platform';
import { gatewayApp } from '../gateway.app';
import { testGatewayConfig } from '../config/test-gateway-config';

/**
 * Request targets a client can write but `fetch` never sends (issue 16 §1): absolute-form, percent-encoded
 * letters, dot segments, empty segments, backslashes, NUL bytes, broken escapes, overlong paths. Each is a 4xx from
 * the gateway itself, and none reaches a service: every keyed path here needs an API key, which no request carries,
 * so a target that slipped past the classification would show up at the recording upstream.
 */
describe('request targets at the gateway (real HTTP on loopback, raw sockets)', () => {
  let gateway: NestFastifyApplication;
  let port: number;
  let upstream: Server;
  const reached: string[] = [];

  beforeAll(async () => {
    upstream = createServer((request: IncomingMessage, response) => {
      reached.push(`${request.method} ${request.url}`);
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"reached":true}');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const service = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const config = testGatewayConfig(service);
    gateway = await initApp(await createApp(gatewayApp, config));
    await gateway.listen(0, '127.0.0.1');
    port = Number(new URL(await gateway.getUrl()).port);
  });

  afterAll(async () => {
    await gateway?.close();
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  beforeEach(() => {
    reached.length = 0;
  });

  async function answer(method: string, target: string) {
    const raw = await rawRequest(port, requestBytes(method, target));
    return raw;
  }

  it('forwards a keyless public route and refuses a keyed one without a key (the baseline)', async () => {
    expect((await answer('GET', '/api/v1/txb/status'))?.status).toBe(200);
    expect((await answer('GET', '/api/v1/txb/proposals'))?.status).toBe(401);
    expect(reached).toEqual(['GET /api/v1/txb/status']);
  });

  const TRICKS: [string, string][] = [
    ['absolute-form', 'http://127.0.0.1/api/v1/txb/proposals'],
    ['absolute-form, another host', 'http://evil.example:80/api/v1/rms/notifications/configs'],
    ['absolute-form, https', 'https://127.0.0.1/api/v1/keys/me'],
    ['authority-form', '127.0.0.1:80'],
    ['asterisk-form', '*'],
    ['an encoded letter in the prefix', '/%61pi/v1/txb/proposals'],
    ['an encoded letter in the service', '/api/v1/%74xb/proposals'],
    ['an encoded letter in the route', '/api/v1/txb/%70roposals'],
    ['an encoded letter in the version', '/api/%761/keys/me'],
    ['an upper-case escape', '/%41pi/v1/txb/proposals'],
    ['an encoded slash', '/api%2Fv1/txb/proposals'],
    ['an encoded slash inside a route', '/api/v1/keys/subscribe%2F..%2Fme'],
    ['a double slash in front', '//api/v1/txb/proposals'],
    ['a double slash inside', '/api/v1//txb/proposals'],
    ['a dot-dot segment', '/api/v1/../v1/txb/proposals'],
    ['a dot segment', '/api/v1/./txb/proposals'],
    ['an encoded dot-dot', '/api/v1/%2e%2e/v1/txb/proposals'],
    ['a mixed-case encoded dot-dot', '/api/v1/txb/%2E./proposals'],
    ['a backslash', '/api\\v1\\txb\\proposals'],
    ['an encoded backslash', '/api/v1/txb%5cproposals'],
    ['an encoded NUL', '/api/v1/txb/proposals%00'],
    ['an invalid escape', '/api/v1/txb/proposals%zz'],
    ['a cut escape', '/api/v1/txb/proposals%4'],
    ['an escaped escape', '/api/v1/txb/%2570roposals'],
    ['an overlong path', `/api/v1/txb/${'a'.repeat(20_000)}`],
    ['public route reached through dot segments', '/api/v1/txb/status/../proposals'],
    ['public route reached through an encoded dot-dot', '/api/v1/keys/subscribe/status/%2e%2e/%2e%2e/me'],
    ['a semicolon path parameter', '/api/v1/txb;x=1/proposals'],
    ['a fragment', '/api/v1/txb/proposals#frag'],
  ];

  it.each(TRICKS)('%s: a 4xx from the gateway, and nothing forwarded', async (_name, target) => {
    for (const method of ['GET', 'POST', 'DELETE', 'HEAD']) {
      const raw = await answer(method, target);
      // Node's HTTP parser may refuse a target before the app sees it: it closes with its own 400.
      if (raw !== undefined) {
        expect({ method, status: raw.status }).toEqual({ method, status: expect.any(Number) });
        expect(raw.status).toBeGreaterThanOrEqual(400);
        expect(raw.status).toBeLessThan(500);
        if (method !== 'HEAD' && raw.headers['content-type']?.startsWith('application/json')) {
          expect(JSON.parse(raw.body)).toMatchObject({ success: false, status: raw.status });
        }
      }
    }
    expect(reached).toEqual([]);
    expect((await answer('GET', '/health'))?.status).toBe(200);
  });
});
