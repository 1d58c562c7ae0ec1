/**
 * The client against a real HTTP server on loopback (node:http): the headers it sends, its retries of 429 and the
 * errors it reads from the envelope. Nothing of fetch is replaced.
 */
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, REQUEST_ID_HEADER, retryAfterSeconds } from './api-error';
import { API_KEY_HEADER, type Answer, createRpClient, unwrap } from './rp-client';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (seen: Seen, index: number) => { status: number; headers?: Record<string, string>; body?: unknown };

const WALLET = 'GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX';

const RISK: Answer<'getRisk'> = {
  success: true,
  walletAddress: WALLET,
  positions: [],
  levels: { medium: 1.5, high: 1.25, critical: 1.1 },
  evaluatedAt: '2026-05-01T12:00:00.000Z',
  timestamp: '2026-05-01T12:00:00.000Z',
};

describe('the API client', () => {
  let server: Server;
  let baseUrl: string;
  let seen: Seen[];
  let handler: Handler;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const entry = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        };
        seen.push(entry);
        const answer = handler(entry, seen.length - 1);
        const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
        const type = typeof answer.body === 'string' ? 'text/html' : 'application/json';
        res.writeHead(answer.status, { 'content-type': type, ...answer.headers }).end(text);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );

  beforeEach(() => {
    seen = [];
    handler = () => ({ status: 200, body: RISK });
  });

  it('sends the key in X-API-Key and a new X-Request-Id with each call, and returns the typed answer', async () => {
    const api = createRpClient({ baseUrl, apiKey: 'rp_test_key' });
    const risk = await unwrap(
      api.GET('/api/v1/rms/risk/{walletAddress}', { params: { path: { walletAddress: WALLET } } }),
    );
    await unwrap(api.GET('/api/v1/rms/risk/{walletAddress}', { params: { path: { walletAddress: WALLET } } }));

    expect(risk.walletAddress).toBe(WALLET);
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual([
      `GET /api/v1/rms/risk/${WALLET}`,
      `GET /api/v1/rms/risk/${WALLET}`,
    ]);
    expect(seen.map(({ headers }) => headers[API_KEY_HEADER.toLowerCase()])).toEqual(['rp_test_key', 'rp_test_key']);
    const ids = seen.map(({ headers }) => headers[REQUEST_ID_HEADER.toLowerCase()]);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('leaves a key header the call sets itself alone', async () => {
    const api = createRpClient({ baseUrl, apiKey: 'rp_test_key' });
    await api.GET('/api/v1/keys/me', { headers: { authorization: 'Bearer rp_test_other' } });
    expect(seen[0].headers['authorization']).toBe('Bearer rp_test_other');
    expect(seen[0].headers[API_KEY_HEADER.toLowerCase()]).toBeUndefined();
  });

  it('retries a 429 after its Retry-After seconds with the same request id and body', async () => {
    handler = (_seen, index) =>
      index === 0
        ? { status: 429, headers: { 'Retry-After': '1' }, body: { success: false, code: 'RATE_LIMITED', error: 'x' } }
        : { status: 200, body: { success: true, txHash: 'ab'.repeat(32) } };
    const api = createRpClient({ baseUrl, apiKey: 'rp_test_key' });
    const started = performance.now();
    const answer = await unwrap(api.POST('/api/v1/txb/submit', { body: { transactionXdr: 'AAAA' } }));
    const waited = performance.now() - started;

    expect(answer.txHash).toBe('ab'.repeat(32));
    expect(seen).toHaveLength(2);
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(seen[1].headers[REQUEST_ID_HEADER.toLowerCase()]).toBe(seen[0].headers[REQUEST_ID_HEADER.toLowerCase()]);
    expect(seen.map(({ body }) => JSON.parse(body))).toEqual([{ transactionXdr: 'AAAA' }, { transactionXdr: 'AAAA' }]);
  });

  it('gives up after maxAttempts and throws the 429 as an ApiError', async () => {
    handler = () => ({
      status: 429,
      headers: { 'Retry-After': '0', [REQUEST_ID_HEADER]: 'from-the-gateway' },
      body: { success: false, status: 429, code: 'RATE_LIMITED', error: 'Too many requests' },
    });
    const api = createRpClient({ baseUrl, apiKey: 'rp_test_key', maxAttempts: 4 });
    const error = await unwrap(api.GET('/api/v1/txb/status')).catch((caught: unknown) => caught);

    expect(seen).toHaveLength(4);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      message: 'Too many requests',
      requestId: 'from-the-gateway',
      retryAfterSeconds: 0,
    });
  });

  it('does not wait for a Retry-After longer than maxRetryAfterSeconds', async () => {
    handler = () => ({ status: 429, headers: { 'Retry-After': '3600' }, body: { code: 'RATE_LIMITED', error: 'x' } });
    const api = createRpClient({ baseUrl, maxRetryAfterSeconds: 30 });
    const error = await unwrap(api.GET('/api/v1/txb/status')).catch((caught: unknown) => caught);
    expect(seen).toHaveLength(1);
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 3600 });
  });

  it('never retries other errors', async () => {
    handler = () => ({ status: 503, body: { success: false, status: 503, code: 'NOT_CONFIGURED', error: 'later' } });
    const api = createRpClient({ baseUrl });
    await expect(unwrap(api.GET('/api/v1/txb/status'))).rejects.toMatchObject({ status: 503, code: 'NOT_CONFIGURED' });
    expect(seen).toHaveLength(1);
  });

  it('reads status, code, message, details and request id from the error envelope', async () => {
    handler = () => ({
      status: 400,
      body: {
        success: false,
        status: 400,
        code: 'VALIDATION_FAILED',
        error: 'Invalid input',
        details: [{ field: 'walletAddress', message: 'must be a valid ledger G-address' }],
        requestId: 'req-42',
      },
    });
    const api = createRpClient({ baseUrl, apiKey: 'rp_test_key' });
    const error = await unwrap(
      api.GET('/api/v1/rms/risk/{walletAddress}', { params: { path: { walletAddress: 'nope' } } }),
    ).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'Invalid input',
      details: [{ field: 'walletAddress', message: 'must be a valid ledger G-address' }],
      requestId: 'req-42',
    });
  });

  it('names an answer that is not an envelope by its status', async () => {
    handler = () => ({ status: 502, headers: { [REQUEST_ID_HEADER]: 'req-7' }, body: '<html>Bad gateway</html>' });
    const api = createRpClient({ baseUrl });
    const error = await unwrap(api.GET('/api/v1/txb/status')).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 502, code: 'HTTP_502', details: [], requestId: 'req-7' });
    expect((error as ApiError).message).toContain('Bad gateway');
  });

  it('gives up on an attempt that outlasts timeoutMs', async () => {
    handler = () => ({ status: 200, body: RISK });
    const slow = createServer(() => undefined);
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const api = createRpClient({
        baseUrl: `http://127.0.0.1:${(slow.address() as AddressInfo).port}`,
        timeoutMs: 200,
      });
      await expect(api.GET('/api/v1/txb/status')).rejects.toMatchObject({ name: 'TimeoutError' });
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-05-01T12:00:00Z');
    expect(retryAfterSeconds('7', now)).toBe(7);
    expect(retryAfterSeconds('Fri, 01 May 2026 12:00:30 GMT', now)).toBe(30);
    expect(retryAfterSeconds('Fri, 01 May 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(null, now)).toBeUndefined();
  });
});
