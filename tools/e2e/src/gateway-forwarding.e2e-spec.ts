/**
 * The gateway as a real process in front of an upstream HTTP server: what it forwards (bodies read within its
 * limit and forwarded byte for byte under a signed hash) and how it answers when the upstream is slow or gone. The upstream records exactly what reached it, and answers the gateway's key
 * introspection for one key (authentication itself is proven in gateway-auth.e2e-spec.ts).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer, get, request } from 'node:http';
import { AddressInfo } from 'node:net';
import { AppProcess, freePort } from '@rp/dev';
import { INTERNAL_BODY_HASH_HEADER, verifyInternalRequest } from '@rp/platform';
import { startApp } from './support/running-apps';

const API_KEY = `rp_test_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x').slice(0, 32)}`;
const WITH_KEY = { authorization: `Bearer ${API_KEY}` };
const KEY_ID = `fwd-${randomUUID()}`;
const TOKEN = 'e2e-forwarding-token-0123456789';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  bodySha256: string;
  bodyLength: number;
  body: Buffer;
}

interface Upstream {
  server: Server;
  url: string;
  seen: Seen[];
  /** Lets the streaming route send its second chunk; it holds it until then. */
  releaseStream(): void;
  /** Lets the slow route answer; it holds its answer until then. */
  releaseSlow(): void;
}

function upstream(): Promise<Upstream> {
  const seen: Seen[] = [];
  let release: () => void = () => undefined;
  let released = new Promise<void>((resolve) => (release = resolve));
  let releaseSlow: () => void = () => undefined;
  const slowReleased = new Promise<void>((resolve) => (releaseSlow = resolve));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    let length = 0;
    req.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      chunks.push(chunk);
      length += chunk.length;
    });
    req.on('end', () => {
      if (req.url === '/internal/keys/introspect') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            active: true,
            keyId: KEY_ID,
            tier: 'standard',
            rateLimit: 60,
            burst: 120,
            expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
            email: null,
            account: 'partner:forwarding',
          }),
        );
        return;
      }
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        bodySha256: hash.digest('hex'),
        bodyLength: length,
        body: Buffer.concat(chunks),
      });
      if (req.url?.startsWith('/api/v1/keys/stream')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first\n');
        void released.then(() => {
          res.end('second\n');
          released = new Promise<void>((resolve) => (release = resolve));
        });
      } else if (req.url?.startsWith('/api/v1/keys/stalls')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial\n');
      } else if (req.url?.startsWith('/api/v1/keys/slow')) {
        void slowReleased.then(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('done slowly'));
      } else if (req.url?.startsWith('/api/v1/keys/silent')) {
        // never answers
      } else {
        res.writeHead(402, { 'content-type': 'application/json', 'payment-required': 'eyJ4NDAyVmVyc2lvbiI6Mn0=' });
        res.end(JSON.stringify({ error: 'Payment required', status: 402 }));
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        seen,
        releaseStream: () => release(),
        releaseSlow: () => releaseSlow(),
      }),
    ),
  );
}

describe('the gateway forwarding to a service', () => {
  let gateway: AppProcess;
  let service: Awaited<ReturnType<typeof upstream>>;

  beforeAll(async () => {
    service = await upstream();
    gateway = await startApp('gateway', {
      SUBSCRIPTION_URL: service.url,
      TXB_URL: service.url,
      NOTIFICATIONS_URL: `http://127.0.0.1:${await freePort()}`,
      UPSTREAM_TIMEOUT_MS: '700',
      BODY_LIMIT: '4kb',
      INTERNAL_TOKEN: TOKEN,
    });
  }, 90_000);

  afterAll(async () => {
    await gateway?.stop();
    service?.server.closeAllConnections();
    service?.server.close();
  });

  it('passes method, path, query, headers and body bytes, and returns status, headers and body unchanged', async () => {
    const body = '{"email":"a@b.co", not json on purpose';
    const response = await fetch(`${gateway.url}/api/v1/keys/subscribe?probe=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-payment-signature': 'c2lnbmVk', 'x-request-id': 'fwd-1' },
      body,
    });
    expect(response.status).toBe(402);
    expect(response.headers.get('payment-required')).toBe('eyJ4NDAyVmVyc2lvbiI6Mn0=');
    expect(await response.json()).toEqual({ error: 'Payment required', status: 402 });
    const seen = service.seen.at(-1) as Seen;
    expect(seen).toMatchObject({
      method: 'POST',
      url: '/api/v1/keys/subscribe?probe=1',
      bodyLength: Buffer.byteLength(body),
    });
    expect(seen.bodySha256).toBe(createHash('sha256').update(body).digest('hex'));
    expect(seen.headers['x-payment-signature']).toBe('c2lnbmVk');
    expect(seen.headers['x-request-id']).toBe('fwd-1');
    expect(seen.headers['x-forwarded-for']).toBeDefined();
  });

  /** A call sent exactly as written: fetch() would normalise the path and refuses a Connection header. */
  function rawCall(path: string, headers: Record<string, string>, body?: string, method = body ? 'POST' : 'GET') {
    const { port } = new URL(gateway.url);
    return new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const call = request({ host: '127.0.0.1', port, path, method, headers }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode, body: text }));
      });
      call.on('error', reject);
      call.end(body);
    });
  }

  it('never forwards hop-by-hop headers or the names the client lists in Connection', async () => {
    const answer = await rawCall(
      '/api/v1/keys/subscribe',
      {
        'content-type': 'application/json',
        connection: 'keep-alive, x-private-hop',
        'x-private-hop': 'for the gateway only',
        'proxy-authorization': 'Basic c2VjcmV0',
        'x-kept': 'yes',
      },
      '{}',
    );
    expect(answer.status).toBe(402);
    const seen = service.seen.at(-1) as Seen;
    expect(seen.headers['x-kept']).toBe('yes');
    expect(seen.headers['x-private-hop']).toBeUndefined();
    expect(seen.headers['proxy-authorization']).toBeUndefined();
  });

  it.each([
    '/api/v1/keys/../txb/build',
    '/api/v1/keys/%2e%2e/txb/build',
    '/api/v1/txb/./build',
    '/api/v1/../api/v1/txb',
  ])('refuses the dot segments of %s with 400 and forwards nothing', async (path) => {
    const before = service.seen.length;
    const answer = await rawCall(path, WITH_KEY);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'BAD_REQUEST', details: [{ field: 'path' }] });
    expect(service.seen.length).toBe(before);
  });

  it.each(['GET', 'PUT', 'PATCH', 'DELETE'])('forwards %s', async (method) => {
    const response = await fetch(`${gateway.url}/api/v1/txb/proposals?wallet=G1`, { method, headers: WITH_KEY });
    expect(response.status).toBe(402);
    expect(service.seen.at(-1)).toMatchObject({ method, url: '/api/v1/txb/proposals?wallet=G1' });
  });

  it('refuses a body over its own size limit with 413 and forwards nothing', async () => {
    const before = service.seen.length;
    const response = await fetch(`${gateway.url}/api/v1/keys/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', ...WITH_KEY },
      body: Buffer.alloc(2 * 1024 * 1024, 7),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', error: expect.stringContaining('4096') });
    expect(service.seen.length).toBe(before);
  });

  it('forwards a body under its limit byte for byte, unparsed and undecoded, with its hash signed', async () => {
    // Not JSON, and gzip-labelled without being gzip: the gateway neither parses nor decodes what it forwards.
    const body = randomBytes(3000);
    const response = await fetch(`${gateway.url}/api/v1/keys/upload?part=1`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip', ...WITH_KEY },
      body,
    });
    expect(response.status).toBe(402);
    const seen = service.seen.at(-1) as Seen;
    expect(seen).toMatchObject({
      method: 'PUT',
      bodyLength: body.length,
      bodySha256: createHash('sha256').update(body).digest('hex'),
    });
    expect(seen.headers['content-length']).toBe(String(body.length));
    expect(seen.headers['content-encoding']).toBe('gzip');
    expect(seen.headers[INTERNAL_BODY_HASH_HEADER]).toBe(seen.bodySha256);
    const verified = verifyInternalRequest(TOKEN, {
      method: 'PUT',
      path: seen.url,
      headers: seen.headers,
      body: seen.body,
    });
    expect(verified).toMatchObject({ ok: true, bodySha256: seen.bodySha256, identity: { keyId: KEY_ID } });
    // The same headers over other bytes do not verify.
    const other = Buffer.from(body);
    other[0] ^= 1;
    expect(verifyInternalRequest(TOKEN, { method: 'PUT', path: seen.url, headers: seen.headers, body: other }).ok).toBe(
      false,
    );
  });

  it('forwards no body on a GET, and signs the empty body', async () => {
    const response = await rawCall(
      '/api/v1/txb/proposals?wallet=G2',
      { ...WITH_KEY, 'content-length': '5' },
      'hello',
      'GET',
    );
    expect(response.status).toBe(402);
    const seen = service.seen.at(-1) as Seen;
    expect(seen).toMatchObject({ method: 'GET', bodyLength: 0 });
    expect(seen.headers['content-length']).toBeUndefined();
    expect(verifyInternalRequest(TOKEN, { method: 'GET', path: seen.url, headers: seen.headers, body: '' }).ok).toBe(
      true,
    );
  });

  it('streams the answer: the first chunk reaches the client while the service still holds the rest', async () => {
    const response = await fetch(`${gateway.url}/api/v1/keys/stream`, { headers: WITH_KEY });
    const reader = response.body!.getReader();
    // The service sends the rest only once the first chunk is here: a gateway that buffered would never get it.
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString()).toBe('first\n');
    service.releaseStream();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += Buffer.from(chunk.value).toString();
    expect(rest).toBe('second\n');
  });

  it('answers 504 in the envelope when the service stays silent past the upstream timeout', async () => {
    const started = Date.now();
    const response = await fetch(`${gateway.url}/api/v1/keys/silent`, {
      headers: { 'x-request-id': 'slow-1', ...WITH_KEY },
    });
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({
      success: false,
      status: 504,
      code: 'UPSTREAM_TIMEOUT',
      error: 'The subscription service did not answer in time',
      requestId: 'slow-1',
    });
    // The configured 700 ms, not the 30 s default (with room for a busy machine).
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('cuts the client off when the service stalls after its answer began', async () => {
    // fetch() resolves a truncated chunked body as if it were whole; node:http tells the truth.
    const answer = await new Promise<{ status?: number; body: string; complete: boolean }>((resolve) => {
      get(`${gateway.url}/api/v1/keys/stalls`, { headers: WITH_KEY }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('close', () => resolve({ status: response.statusCode, body, complete: response.complete }));
      });
    });
    expect(answer).toEqual({ status: 200, body: 'partial\n', complete: false });
  });

  it('answers 503 in the envelope when the service is down', async () => {
    const response = await fetch(`${gateway.url}/api/v1/rms/notifications?walletAddress=G1`, {
      headers: { 'x-request-id': 'down-1', ...WITH_KEY },
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toEqual({
      success: false,
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      error: 'The notifications service is unavailable',
      requestId: 'down-1',
    });
  });

  it('keeps what it does not own: its own 404 for other paths, its own parser for its own routes', async () => {
    const other = await fetch(`${gateway.url}/api/v1/elsewhere`);
    expect(other.status).toBe(404);
    // Its own answers carry the platform's security headers; forwarded ones carry the service's own (none here).
    expect(other.headers.get('x-content-type-options')).toBe('nosniff');
    const forwarded = await fetch(`${gateway.url}/api/v1/keys/subscribe`, { method: 'POST', body: '{}' });
    expect(forwarded.status).toBe(402);
    expect(forwarded.headers.get('x-content-type-options')).toBeNull();
    expect(((await other.json()) as { error: string }).error).toBe('No route for GET /api/v1/elsewhere');
    const lookalike = await fetch(`${gateway.url}/api/v1/keysmith`);
    expect(lookalike.status).toBe(404);
  });

  it('labels forwarded requests by service prefix in its metrics', async () => {
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(
      /http_request_duration_seconds_count\{app="gateway",method="POST",route="\/api\/v1\/keys\/\*",status_code="402"\} [1-9]/,
    );
    expect(metrics).toMatch(/route="\/api\/v1\/keys\/\*",status_code="504"/);
    expect(metrics).toMatch(/route="\/api\/v1\/rms\/\*",status_code="503"/);
  });
});

describe('a gateway told to stop (SIGTERM)', () => {
  it('finishes the request in flight, refuses new ones, and exits 0', async () => {
    const service = await upstream();
    const gateway = await startApp('gateway', { SUBSCRIPTION_URL: service.url, UPSTREAM_TIMEOUT_MS: '5000' });
    try {
      const inFlight = fetch(`${gateway.url}/api/v1/keys/slow`, { headers: WITH_KEY });
      // Events, not sleeps: the service holds the request, then the gateway is told to stop and closes its door.
      await until(
        () => service.seen.some((seen) => seen.url === '/api/v1/keys/slow'),
        'the slow call reached the service',
      );
      const stopped = gateway.stop();
      await untilAsync(
        () =>
          fetch(`${gateway.url}/health/live`).then(
            () => false,
            () => true,
          ),
        'new connections are refused',
      );
      service.releaseSlow();
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('done slowly');
      expect(await stopped).toBe(0);
      expect(gateway.lines.join('\n')).toContain('stopping (SIGTERM)');
    } finally {
      await gateway.stop();
      service.server.closeAllConnections();
      service.server.close();
    }
  }, 60_000);
});

/** Resolves once `condition` holds; fails after a deadline long enough for a busy machine. */
async function until(condition: () => boolean, what: string): Promise<void> {
  await untilAsync(async () => condition(), what);
}

async function untilAsync(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: did not happen within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
