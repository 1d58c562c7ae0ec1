/**
 * The gateway as a real process in front of the real subscription service (which answers its key introspection for
 * a partner key issued through it) and, in place of txb, an upstream HTTP server that records exactly what reached
 * it: what the gateway forwards (bodies read within its limit and forwarded byte for byte under a signed hash) and
 * how it answers when the upstream is slow or gone. Authentication itself is proven in gateway-auth.e2e-spec.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { get, request } from 'node:http';
import { AppProcess, freePort } from '@rp/dev';
import { INTERNAL_BODY_HASH_HEADER, verifyInternalRequest } from '@rp/platform';
import { type IssuedPartnerKey, issuePartnerKeyRecord } from './support/partner-keys';
import { type Seen, type Upstream, upstream } from './support/recording-upstream';
import { startApp } from './support/running-apps';

const TOKEN = `e2e-forwarding-token-${randomBytes(8).toString('hex')}`;
const ADMIN_KEY = 'e2e-forwarding-admin-0123456789';
/** Short, for the cases where the upstream never answers: nothing that answers is ever held to it. */
const SHORT_UPSTREAM_TIMEOUT_MS = 1000;

let subscription: AppProcess;
let partner: IssuedPartnerKey;
let WITH_KEY: Record<string, string>;

beforeAll(async () => {
  subscription = await startApp('subscription', {
    INTERNAL_TOKEN: TOKEN,
    RMS_ADMIN_API_KEY: ADMIN_KEY,
    X402_LEDGER_NETWORK: 'ledger:testnet',
  });
}, 90_000);

afterAll(async () => {
  await subscription?.stop();
});

/** A partner key issued through `gateway` by the real subscription service; calls use it from then on. */
async function issueKey(gateway: AppProcess): Promise<void> {
  partner = await issuePartnerKeyRecord(gateway, ADMIN_KEY, '127.0.0.1');
  WITH_KEY = { authorization: `Bearer ${partner.apiKey}` };
}

/** A gateway in front of the real subscription service, with `txb` (a URL) as its transaction builder. */
function gatewayTo(txb: string, env: Record<string, string> = {}): Promise<AppProcess> {
  return startApp('gateway', { SUBSCRIPTION_URL: subscription.url, TXB_URL: txb, INTERNAL_TOKEN: TOKEN, ...env });
}

/** The recording upstream and a gateway to it (`env` on top), with a partner key issued through that gateway. */
async function forwarding(env: Record<string, string>): Promise<{ gateway: AppProcess; service: Upstream }> {
  const service = await upstream();
  const gateway = await gatewayTo(service.url, env);
  await issueKey(gateway);
  return { gateway, service };
}

async function stopForwarding(gateway: AppProcess | undefined, service: Upstream | undefined): Promise<void> {
  await gateway?.stop();
  service?.server.closeAllConnections();
  service?.server.close();
}

describe('the gateway forwarding to a service', () => {
  let gateway: AppProcess;
  let service: Upstream;

  beforeAll(async () => {
    // The default UPSTREAM_TIMEOUT_MS (30 s): every upstream here answers at once, however busy the machine.
    ({ gateway, service } = await forwarding({
      NOTIFICATIONS_URL: `http://127.0.0.1:${await freePort()}`,
      BODY_LIMIT: '4kb',
    }));
  }, 90_000);

  afterAll(() => stopForwarding(gateway, service));

  it('passes method, path, query, headers and body bytes, and returns status, headers and body unchanged', async () => {
    const body = '{"email":"a@b.co", not json on purpose';
    const response = await fetch(`${gateway.url}/api/v1/txb/build?probe=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-payment-signature': 'c2lnbmVk', 'x-request-id': 'fwd-1', ...WITH_KEY },
      body,
    });
    expect(response.status).toBe(402);
    expect(response.headers.get('payment-required')).toBe('eyJ4NDAyVmVyc2lvbiI6Mn0=');
    expect(await response.json()).toEqual({ error: 'Payment required', status: 402 });
    const seen = service.seen.at(-1) as Seen;
    expect(seen).toMatchObject({
      method: 'POST',
      url: '/api/v1/txb/build?probe=1',
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
      '/api/v1/txb/build',
      {
        ...WITH_KEY,
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
    const response = await fetch(`${gateway.url}/api/v1/txb/upload`, {
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
    const response = await fetch(`${gateway.url}/api/v1/txb/upload?part=1`, {
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
    // The identity the real subscription service gave for the key: the issued key's id.
    expect(verified).toMatchObject({ ok: true, bodySha256: seen.bodySha256, identity: { keyId: partner.keyId } });
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
    const response = await fetch(`${gateway.url}/api/v1/txb/stream`, { headers: WITH_KEY });
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
    const forwarded = await fetch(`${gateway.url}/api/v1/txb/status`);
    expect(forwarded.status).toBe(402);
    expect(forwarded.headers.get('x-content-type-options')).toBeNull();
    expect(((await other.json()) as { error: string }).error).toBe('No route for GET /api/v1/elsewhere');
    const lookalike = await fetch(`${gateway.url}/api/v1/txbx`);
    expect(lookalike.status).toBe(404);
  });

  it('labels forwarded requests by service prefix in its metrics', async () => {
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(
      /http_request_duration_seconds_count\{app="gateway",method="POST",route="\/api\/v1\/txb\/\*",status_code="402"\} [1-9]/,
    );
    expect(metrics).toMatch(/route="\/api\/v1\/rms\/\*",status_code="503"/);
  });
});

describe('a gateway whose service does not answer in time', () => {
  let gateway: AppProcess;
  let service: Upstream;

  beforeAll(async () => {
    // A short timeout, here only: these upstream routes never answer (or stop answering), whatever the machine.
    ({ gateway, service } = await forwarding({ UPSTREAM_TIMEOUT_MS: String(SHORT_UPSTREAM_TIMEOUT_MS) }));
  }, 90_000);

  afterAll(() => stopForwarding(gateway, service));

  it('answers 504 in the envelope when the service stays silent past the upstream timeout', async () => {
    const started = Date.now();
    const response = await fetch(`${gateway.url}/api/v1/txb/silent`, {
      headers: { 'x-request-id': 'slow-1', ...WITH_KEY },
    });
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({
      success: false,
      status: 504,
      code: 'UPSTREAM_TIMEOUT',
      error: 'The txb service did not answer in time',
      requestId: 'slow-1',
    });
    // The configured timeout, not the 30 s default: a bound that only proves it gave up (ten times the setting).
    expect(Date.now() - started).toBeLessThan(10 * SHORT_UPSTREAM_TIMEOUT_MS);
  });

  it('cuts the client off when the service stalls after its answer began', async () => {
    // fetch() resolves a truncated chunked body as if it were whole; node:http tells the truth.
    const answer = await new Promise<{ status?: number; body: string; complete: boolean }>((resolve) => {
      get(`${gateway.url}/api/v1/txb/stalls`, { headers: WITH_KEY }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('close', () => resolve({ status: response.statusCode, body, complete: response.complete }));
      });
    });
    expect(answer).toEqual({ status: 200, body: 'partial\n', complete: false });
  });

  it('labels the timeout by service prefix in its metrics', async () => {
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/route="\/api\/v1\/txb\/\*",status_code="504"/);
  });
});

describe('a gateway told to stop (SIGTERM)', () => {
  it('finishes the request in flight, refuses new ones, and exits 0', async () => {
    const service = await upstream();
    // The held answer is let go by the test, not by a timeout: the default UPSTREAM_TIMEOUT_MS (30 s).
    const gateway = await gatewayTo(service.url);
    try {
      await issueKey(gateway);
      const inFlight = fetch(`${gateway.url}/api/v1/txb/slow`, { headers: WITH_KEY });
      // Events, not sleeps: the service holds the request, then the gateway is told to stop and closes its door.
      await until(
        () => service.seen.some((seen) => seen.url === '/api/v1/txb/slow'),
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
