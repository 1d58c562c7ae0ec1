/**
 * The gateway as a real process in front of an upstream HTTP server: what it forwards and how it answers when the
 * upstream is slow or gone. The upstream records exactly what reached it, and answers the gateway's key
 * introspection for one key (authentication itself is proven in gateway-auth.e2e-spec.ts).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer, get } from 'node:http';
import { AddressInfo } from 'node:net';
import { AppProcess, freePort } from '@rp/dev';
import { startApp } from './support/running-apps';

const API_KEY = `rp_test_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x').slice(0, 32)}`;
const WITH_KEY = { authorization: `Bearer ${API_KEY}` };
const KEY_ID = `fwd-${randomUUID()}`;

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  bodySha256: string;
  bodyLength: number;
}

function upstream(): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const hash = createHash('sha256');
    let length = 0;
    req.on('data', (chunk: Buffer) => {
      hash.update(chunk);
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
      });
      if (req.url?.startsWith('/api/v1/keys/stream')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('first\n');
        setTimeout(() => res.end('second\n'), 400);
      } else if (req.url?.startsWith('/api/v1/keys/stalls')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial\n');
      } else if (req.url?.startsWith('/api/v1/keys/slow')) {
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('done slowly'), 1500);
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
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }),
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

  it.each(['GET', 'PUT', 'PATCH', 'DELETE'])('forwards %s', async (method) => {
    const response = await fetch(`${gateway.url}/api/v1/txb/proposals?wallet=G1`, { method, headers: WITH_KEY });
    expect(response.status).toBe(402);
    expect(service.seen.at(-1)).toMatchObject({ method, url: '/api/v1/txb/proposals?wallet=G1' });
  });

  it('streams bodies past its own size limit without parsing them', async () => {
    const body = Buffer.alloc(2 * 1024 * 1024, 7);
    const response = await fetch(`${gateway.url}/api/v1/keys/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', ...WITH_KEY },
      body,
    });
    expect(response.status).toBe(402);
    expect(service.seen.at(-1)).toMatchObject({
      bodyLength: body.length,
      bodySha256: createHash('sha256').update(body).digest('hex'),
    });
  });

  it('streams the answer: the first chunk arrives before the service has finished', async () => {
    const started = Date.now();
    const response = await fetch(`${gateway.url}/api/v1/keys/stream`, { headers: WITH_KEY });
    const reader = response.body!.getReader();
    const first = await reader.read();
    const firstAt = Date.now() - started;
    expect(Buffer.from(first.value!).toString()).toBe('first\n');
    expect(firstAt).toBeLessThan(350);
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
    expect(Date.now() - started).toBeLessThan(5000);
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
      await new Promise((resolve) => setTimeout(resolve, 300));
      const stopped = gateway.stop();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await expect(fetch(`${gateway.url}/health/live`)).rejects.toThrow();
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
