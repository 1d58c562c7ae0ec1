import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type KeyIntrospection, partnerAccount } from '@rp/contracts';
import {
  INTERNAL_HEADERS,
  type RawAnswer,
  createApp,
  initApp,
  rawRequest,
  requestBytes,
  verifyInternalRequest,
} from '@rp/platform';
import { testGatewayConfig } from '../config/test-gateway-config';
import { gatewayApp } from '../gateway.app';
import { RateLimiter } from '../rate-limit/rate-limiter';

const TOKEN = 'fast-path-test-token-0123456789abcdef';
const KEY = `rp_test_${'A'.repeat(32)}`;
const EXPIRED = `rp_test_${'E'.repeat(32)}`;
const UNKNOWN = `rp_test_${'U'.repeat(32)}`;
const KEY_ID = `fast-${randomUUID()}`;
const LIMITS = { capacity: 100_000, refillPerMinute: 100_000 };

/**
 * The fast path (`fast-path.ts`) against the forwarding routes it stands in front of: two gateways with the same
 * settings, one with `FORWARD_FAST_PATH` on and one with it off, get the same table of requests, real HTTP on
 * loopback, in front of a stand-in service that answers introspection and echoes what each call brought (its
 * signature checked with the token). Every answer, what the service received, the access lines and the duration
 * metrics must be the same; the fast path must take exactly the calls it is for and leave every other to Fastify.
 * Run once trusting no proxy and once trusting one (`X-Forwarded-Proto` and `-Host` then count).
 */
describe.each([0, 1])('the fast path answers as the forwarding routes do (TRUST_PROXY=%i)', (trustProxy) => {
  let upstream: Server;
  const nonces = new Set<string>();
  const reused: string[] = [];
  const gateways: Record<'fast' | 'slow', { app: NestFastifyApplication; port: number; log: string[] }> = {} as never;

  beforeAll(async () => {
    upstream = createServer((request, response) => void standIn(request, response));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const service = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    for (const [name, fast] of [
      ['fast', true],
      ['slow', false],
    ] as const) {
      const config = testGatewayConfig(service, {
        LOG_LEVEL: 'info',
        INTERNAL_TOKEN: TOKEN,
        // Nobody listens there: the 503 of a service that is down.
        NOTIFICATIONS_URL: 'http://127.0.0.1:9',
        TRUST_PROXY: String(trustProxy),
        FORWARD_FAST_PATH: String(fast),
        // Cached for the whole run, however slow the machine: eligibility does not hang on the clock.
        KEY_CACHE_TTL_MS: '600000',
      });
      const log: string[] = [];
      const destination = new PassThrough();
      destination.on('data', (line: Buffer) => log.push(...line.toString().split('\n').filter(Boolean)));
      const app = await initApp(await createApp(gatewayApp, config, { logDestination: destination }));
      await app.listen(0, '127.0.0.1');
      gateways[name] = { app, port: Number(new URL(await app.getUrl()).port), log };
      // The key's answer cached (the first call asks the service), as it is for every call but a key's first.
      await rawRequest(gateways[name].port, requestBytes('GET', '/api/v1/keys/me', { authorization: `Bearer ${KEY}` }));
    }
  });

  afterAll(async () => {
    for (const gateway of Object.values(gateways)) await gateway.app.close();
    upstream?.closeAllConnections();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  /** The introspection answers, and every other call echoed back: method, target, headers, signature check. */
  async function standIn(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const json = { 'content-type': 'application/json' };
    const send = (status: number, headers: Record<string, string>, text: string) =>
      response.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(text)) }).end(text);
    if (request.url === '/internal/keys/introspect') {
      const { apiKey } = JSON.parse(body.toString()) as { apiKey: string };
      send(200, json, JSON.stringify(introspection(apiKey)));
      return;
    }
    const verified = verifyInternalRequest(TOKEN, {
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      body,
    });
    const nonce = String(request.headers['x-rp-nonce']);
    const fresh = !nonces.has(nonce);
    if (!fresh) reused.push(nonce);
    nonces.add(nonce);
    const received: Record<string, unknown> = { ...request.headers };
    for (const name of ['x-rp-nonce', 'x-rp-signature', 'x-rp-timestamp', 'x-request-id', 'host']) {
      delete received[name];
    }
    send(
      200,
      {
        ...json,
        'x-service-header': 'kept',
        'x-dropped': 'no',
        connection: 'x-dropped',
        // Names the gateway writes itself: its own values are written over these, once each.
        'x-request-id': 'service-chosen',
        'ratelimit-remaining': String(LIMITS.capacity * 10),
      },
      JSON.stringify({
        method: request.method,
        url: request.url,
        signed: verified.ok && verified.identity?.keyId,
        freshNonce: fresh,
        requestId: request.headers['x-request-id'],
        received,
        bodyBytes: body.length,
      }),
    );
  }

  function introspection(apiKey: string): KeyIntrospection {
    if (apiKey !== KEY && apiKey !== EXPIRED) return { active: false, reason: 'unknown' };
    return {
      active: true,
      keyId: apiKey === KEY ? KEY_ID : `${KEY_ID}-expired`,
      tier: 'partner',
      rateLimit: LIMITS.refillPerMinute,
      burst: LIMITS.capacity,
      expiresAt: apiKey === KEY ? '2999-01-01T00:00:00.000Z' : '2000-01-01T00:00:00.000Z',
      email: null,
      account: partnerAccount('fast-path'),
    };
  }

  /** The gateway's lease of the key's bucket holds tokens: an eligible call can be decided at once. */
  async function leaseHeld(app: NestFastifyApplication): Promise<void> {
    const limiter = app.get(RateLimiter);
    while (limiter.held(`key:${KEY_ID}`) < 2) await limiter.take(`key:${KEY_ID}`, LIMITS);
  }

  async function fastForwarded(port: number): Promise<number> {
    const metrics = await rawRequest(port, requestBytes('GET', '/metrics'));
    return Number(/^gateway_fast_path_total(?:\{[^}]*\})? (\d+)/m.exec(metrics?.body ?? '')?.[1] ?? 0);
  }

  const bearer = { authorization: `Bearer ${KEY}` };
  /** [case, method, target, headers, body, taken by the fast path] */
  const CASES: Array<[string, string, string, Record<string, string>, string | undefined, boolean]> = [
    ['a keyed GET with a bearer key', 'GET', '/api/v1/keys/me', bearer, undefined, true],
    ['a keyed GET with X-API-Key', 'GET', '/api/v1/txb/proposals', { 'x-api-key': KEY }, undefined, true],
    ['a query', 'GET', '/api/v1/txb/proposals?limit=5&cursor=a%20b', bearer, undefined, true],
    ['a trailing slash', 'GET', '/api/v1/keys/me/', bearer, undefined, true],
    ['the bare prefix', 'GET', '/api/v1/txb', bearer, undefined, true],
    [
      'another Authorization scheme, then X-API-Key',
      'GET',
      '/api/v1/keys/me',
      { authorization: 'Basic eDp5', 'x-api-key': KEY },
      undefined,
      true,
    ],
    [
      'client copies of the internal headers',
      'GET',
      '/api/v1/keys/me',
      { ...bearer, ...Object.fromEntries(INTERNAL_HEADERS.map((name) => [name, 'forged'])) },
      undefined,
      true,
    ],
    [
      'hop-by-hop headers',
      'GET',
      '/api/v1/keys/me',
      {
        ...bearer,
        'keep-alive': 'timeout=5',
        'x-private-hop': '1',
        te: 'trailers',
        'proxy-authorization': 'Basic eDp5',
        trailer: 'x-sum',
      },
      undefined,
      true,
    ],
    [
      'forwarded headers from the client',
      'GET',
      '/api/v1/keys/me',
      {
        ...bearer,
        'x-forwarded-for': '203.0.113.7',
        'x-forwarded-proto': 'https, http',
        'x-forwarded-host': 'a.example, api.example.com',
      },
      undefined,
      true,
    ],
    [
      'a request id of its own',
      'GET',
      '/api/v1/keys/me',
      { ...bearer, 'x-request-id': 'client-chosen-1' },
      undefined,
      true,
    ],
    [
      'a request id that is not one',
      'GET',
      '/api/v1/keys/me',
      { ...bearer, 'x-request-id': 'not one!' },
      undefined,
      true,
    ],
    ['a service that is down (503)', 'GET', '/api/v1/rms/notifications/configs', bearer, undefined, true],
    ['HEAD', 'HEAD', '/api/v1/keys/me', bearer, undefined, false],
    ['DELETE', 'DELETE', '/api/v1/txb/proposals/1', bearer, undefined, false],
    [
      'POST with a body',
      'POST',
      '/api/v1/txb/proposals',
      { ...bearer, 'content-type': 'application/json' },
      '{"a":1}',
      false,
    ],
    ['GET with a body', 'GET', '/api/v1/keys/me', { ...bearer, 'content-type': 'application/json' }, '{"a":1}', false],
    ['GET with Content-Length 0', 'GET', '/api/v1/keys/me', { ...bearer, 'content-length': '0' }, undefined, false],
    [
      'GET with an encoding and no body',
      'GET',
      '/api/v1/keys/me',
      { ...bearer, 'content-encoding': 'gzip' },
      undefined,
      false,
    ],
    ['GET chunked', 'GET', '/api/v1/keys/me', { ...bearer, 'transfer-encoding': 'chunked' }, '0\r\n\r\n', false],
    ['no key', 'GET', '/api/v1/keys/me', {}, undefined, false],
    ['a malformed key', 'GET', '/api/v1/keys/me', { authorization: 'Bearer not-a-key' }, undefined, false],
    ['an unknown key', 'GET', '/api/v1/keys/me', { authorization: `Bearer ${UNKNOWN}` }, undefined, false],
    ['an expired key', 'GET', '/api/v1/keys/me', { authorization: `Bearer ${EXPIRED}` }, undefined, false],
    ['a public route with a key', 'GET', '/api/v1/keys/subscribe/status?email=a%40b.example', bearer, undefined, false],
    ['an admin route with a key', 'GET', '/api/v1/keys/partners', bearer, undefined, false],
    ['a dot segment', 'GET', '/api/v1/keys/./me', bearer, undefined, false],
    ['a dot-dot segment', 'GET', '/api/v1/txb/../keys/me', bearer, undefined, false],
    ['an escaped letter', 'GET', '/api/v1/keys/%6De', bearer, undefined, false],
    ['an escaped dot', 'GET', '/api/v1/keys/%2e%2e/me', bearer, undefined, false],
    ['a double slash', 'GET', '/api/v1//keys/me', bearer, undefined, false],
    ['absolute-form', 'GET', 'http://127.0.0.1/api/v1/keys/me', bearer, undefined, false],
    ['an overlong target', 'GET', `/api/v1/keys/${'a'.repeat(5000)}`, bearer, undefined, false],
    ['a prefix no service owns', 'GET', '/api/v1/keysx/me', bearer, undefined, false],
    ['the API root', 'GET', '/api/v1', bearer, undefined, false],
    ['another case', 'GET', '/API/v1/keys/me', bearer, undefined, false],
    ['outside the API', 'GET', '/health/live', bearer, undefined, false],
  ];

  /** An answer with what legitimately differs between two calls left out: dates, ids, the lease's counts. */
  function comparable(answer: RawAnswer | undefined) {
    if (!answer) return undefined;
    const headers: Record<string, string> = { ...answer.headers };
    const requestId = headers['x-request-id'];
    const remaining = headers['ratelimit-remaining'];
    const reset = headers['ratelimit-reset'];
    for (const name of ['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset']) delete headers[name];
    let body: unknown = answer.body;
    try {
      body = JSON.parse(answer.body) as unknown;
    } catch {
      // not JSON: compared as text
    }
    const echoed = body as { requestId?: string };
    // The id the client sees is the id the service saw (or the envelope names).
    if (echoed && typeof echoed === 'object' && 'requestId' in echoed) {
      expect(echoed.requestId).toBe(requestId);
      echoed.requestId = '<id>';
    }
    if (remaining !== undefined) {
      expect(Number(remaining)).toBeGreaterThanOrEqual(0);
      expect(Number(remaining)).toBeLessThanOrEqual(LIMITS.capacity);
    }
    return {
      status: answer.status,
      headers,
      body,
      requestId: requestId === undefined ? 'none' : 'set',
      reset: reset !== undefined,
    };
  }

  it.each(CASES)('%s', async (_name, method, target, headers, body, taken) => {
    const answers: Record<string, ReturnType<typeof comparable>> = {};
    for (const name of ['fast', 'slow'] as const) {
      const { app, port } = gateways[name];
      await leaseHeld(app);
      const before = await fastForwarded(port);
      answers[name] = comparable(await rawRequest(port, requestBytes(method, target, headers, body)));
      expect((await fastForwarded(port)) - before).toBe(name === 'fast' && taken ? 1 : 0);
    }
    expect(answers['fast']).toEqual(answers['slow']);
    if (!target.includes('/rms/')) expect(answers['fast']?.status).toBeLessThan(500);
  });

  it("writes its own request id and RateLimit headers over the service's, once each", async () => {
    for (const name of ['fast', 'slow'] as const) {
      const { app, port } = gateways[name];
      await leaseHeld(app);
      const answer = await new Promise<IncomingMessage>((resolve, reject) =>
        get({ host: '127.0.0.1', port, path: '/api/v1/keys/me', headers: bearer }, resolve).on('error', reject),
      );
      answer.resume();
      const written = (header: string) =>
        answer.rawHeaders.filter((_value, i) => i % 2 === 0 && answer.rawHeaders[i].toLowerCase() === header);
      expect(answer.statusCode).toBe(200);
      expect(written('x-request-id')).toHaveLength(1);
      expect(written('ratelimit-remaining')).toHaveLength(1);
      expect(answer.headers['x-request-id']).not.toBe('service-chosen');
      expect(Number(answer.headers['ratelimit-remaining'])).toBeLessThanOrEqual(LIMITS.capacity);
      expect(answer.headers['x-service-header']).toBe('kept');
    }
  });

  it('signed every forwarded call with a nonce of its own', () => {
    expect(nonces.size).toBeGreaterThan(CASES.length);
    expect(reused).toEqual([]);
  });

  it('writes the same access lines and duration metrics', async () => {
    const lines = (log: string[]) =>
      log
        .map(
          (line) =>
            JSON.parse(line) as {
              msg?: string;
              level?: unknown;
              req?: { method: string; url: string };
              res?: { statusCode: number };
            },
        )
        .filter((entry) => entry.msg === 'request completed' || entry.msg === 'request errored')
        .map((entry) => `${String(entry.level)} ${entry.req?.method} ${entry.req?.url} ${entry.res?.statusCode}`)
        .filter((line) => !line.includes('/metrics'))
        .sort();
    expect(lines(gateways.fast.log)).toEqual(lines(gateways.slow.log));
    expect(lines(gateways.fast.log).length).toBeGreaterThan(CASES.length / 2);
    const durations = async (port: number) =>
      ((await rawRequest(port, requestBytes('GET', '/metrics')))?.body ?? '')
        .split('\n')
        .filter((line) => line.startsWith('http_request_duration_seconds_count') && line.includes('/api/v1'))
        .sort();
    expect(await durations(gateways.fast.port)).toEqual(await durations(gateways.slow.port));
  });
});
