/**
 * The gateway as real processes in front of a fake subscription service: API-key checks, the signed identity it
 * forwards, token-bucket limits shared in Redis by two gateways, the per-IP bucket of keyless routes, and limits
 * that hold when Redis dies. Each test uses its own keys and client addresses (TRUST_PROXY=1 and X-Forwarded-For),
 * so buckets left in the shared Redis by earlier runs do not matter.
 */
import { createHash, randomInt, randomUUID } from 'node:crypto';
import type { CallerIdentity, KeyIntrospection } from '@rp/contracts';
import { AppProcess } from '@rp/dev';
import { verifyInternalRequest } from '@rp/platform';
import { FakeSubscription, fakeSubscription, newApiKey } from './support/fake-subscription';
import { privateRedis } from './support/private-redis';
import { startApp } from './support/running-apps';

const TOKEN = 'e2e-internal-token-0123456789';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function standardKey(name: string, rateLimit = 60): Extract<KeyIntrospection, { active: true }> {
  return {
    active: true,
    keyId: `${name}-${randomUUID()}`,
    tier: 'standard',
    rateLimit,
    burst: 120,
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    email: 'e2e@example.com',
    account: `partner:${name}`,
  };
}

/** A client address of its own for each test: per-IP buckets never carry over between tests or runs. */
function clientIp(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

interface Call {
  method?: string;
  ip?: string;
  headers?: Record<string, string>;
}

function call(gateway: AppProcess, path: string, { method = 'GET', ip = clientIp(), headers = {} }: Call = {}) {
  return fetch(`${gateway.url}${path}`, { method, headers: { 'x-forwarded-for': ip, ...headers } });
}

const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

function gatewayEnv(service: FakeSubscription, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SUBSCRIPTION_URL: service.url,
    TXB_URL: service.url,
    NOTIFICATIONS_URL: service.url,
    INTERNAL_TOKEN: TOKEN,
    TRUST_PROXY: '1',
    PUBLIC_BURST: '5',
    PUBLIC_RATE_LIMIT: '60',
    KEY_FAILURE_BURST: '5',
    // One failed attempt a minute back: no refill can blur the count of 5 however slow the machine.
    KEY_FAILURE_RATE_LIMIT: '1',
    // A burst of 120 concurrent calls can stall a cold gateway's event loop past the 100 ms default; that would
    // (rightly) hand part of the burst to the in-process fallback and blur the exact counts these tests assert.
    RATE_LIMIT_REDIS_TIMEOUT_MS: '1000',
    ...extra,
  };
}

describe('the gateway in front of the services (two replicas, one Redis)', () => {
  let service: FakeSubscription;
  let a: AppProcess;
  let b: AppProcess;

  beforeAll(async () => {
    service = await fakeSubscription(TOKEN);
    [a, b] = await Promise.all([startApp('gateway', gatewayEnv(service)), startApp('gateway', gatewayEnv(service))]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    service?.close();
  });

  it('answers a keyed route without a key with 401 API_KEY_REQUIRED and WWW-Authenticate: Bearer', async () => {
    const response = await call(a, '/api/v1/keys/me', { headers: { 'x-request-id': 'no-key-1' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(await response.json()).toEqual({
      success: false,
      status: 401,
      code: 'API_KEY_REQUIRED',
      error: 'An API key is required: send Authorization: Bearer <key> or X-API-Key: <key>',
      requestId: 'no-key-1',
    });
  });

  it('answers a malformed, unknown or revoked key with 401 INVALID_API_KEY', async () => {
    const revoked = service.key({ active: false, reason: 'revoked' });
    for (const headers of [bearer('rp_test_tooShort'), { 'x-api-key': newApiKey() }, { 'x-api-key': revoked }]) {
      const response = await call(a, '/api/v1/txb/build', { method: 'POST', headers });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });
    }
  });

  it('answers an expired key with 401 KEY_EXPIRED', async () => {
    const expired = service.key({ active: false, reason: 'expired', expiresAt: '2026-01-01T00:00:00.000Z' });
    const response = await call(a, '/api/v1/keys/me', { headers: bearer(expired) });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'KEY_EXPIRED' });
  });

  it('forwards a valid key with an identity signed by INTERNAL_TOKEN, replacing any the client sent', async () => {
    const key = standardKey('signed');
    const apiKey = service.key(key);
    const forged = Buffer.from(JSON.stringify({ ...key, keyId: 'someone-else', tier: 'partner' })).toString(
      'base64url',
    );
    const response = await call(a, '/api/v1/rms/notifications?walletAddress=G1', {
      headers: {
        'x-api-key': apiKey,
        'x-request-id': 'signed-1',
        'x-rp-identity': forged,
        'x-rp-signature': 'v1=forged',
        'x-rp-timestamp': '1',
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-limit')).toBe('120');
    // A key's first call (a quiet key) leases one token: Redis decides it, so the count is exact, not a bound.
    expect(response.headers.get('ratelimit-remaining')).toBe('119');
    expect(response.headers.get('ratelimit-reset')).toBe('1');
    const seen = service.forwarded.at(-1)!;
    expect(seen.url).toBe('/api/v1/rms/notifications?walletAddress=G1');
    expect(seen.headers['x-request-id']).toBe('signed-1');
    expect(seen.headers['x-rp-identity']).not.toBe(forged);
    const { active, ...identity } = key;
    expect(active).toBe(true);
    expect(verifyInternalRequest(TOKEN, { method: 'GET', path: seen.url, headers: seen.headers, body: '' })).toEqual({
      ok: true,
      identity: identity satisfies CallerIdentity,
      nonce: seen.headers['x-rp-nonce'],
      bodySha256: createHash('sha256').digest('hex'),
      validUntil: expect.any(Number),
    });
    expect(
      verifyInternalRequest('not-the-token-0123456', { method: 'GET', path: seen.url, headers: seen.headers }).ok,
    ).toBe(false);
    expect(service.introspections.filter((entry) => entry.apiKey === apiKey)).toEqual([{ apiKey, signed: true }]);
  });

  it('lets 120 calls of a standard key through, refuses the next with 429, and lets one more through a second later', async () => {
    const apiKey = service.key(standardKey('burst'));
    const started = Date.now();
    const first = await Promise.all(
      Array.from({ length: 120 }, () => call(a, '/api/v1/txb/proposals', { headers: bearer(apiKey) })),
    );
    expect(first.map((response) => response.status)).toEqual(Array(120).fill(200));
    // On a busy machine a second may pass meanwhile: each second refills one token (60 a minute), which passes.
    let refused = await call(a, '/api/v1/txb/proposals', { headers: bearer(apiKey) });
    let extra = 0;
    while (refused.status === 200) {
      extra += 1;
      refused = await call(a, '/api/v1/txb/proposals', { headers: bearer(apiKey) });
    }
    expect(extra).toBeLessThanOrEqual(Math.floor((Date.now() - started) / 1000));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('ratelimit-limit')).toBe('120');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(await refused.json()).toMatchObject({ success: false, status: 429, code: 'RATE_LIMITED' });
    await sleep(1100);
    expect((await call(a, '/api/v1/txb/proposals', { headers: bearer(apiKey) })).status).toBe(200);
  });

  it('shares one bucket between two gateways: hammered through both, the key gets its burst, never more', async () => {
    // One token a minute: however long the calls take here, no refill can blur the count.
    const apiKey = service.key(standardKey('shared', 1));
    const started = Date.now();
    // Each gateway leases tokens in small batches (RATE_LIMIT_LEASE): 60 calls each may not all pass while the
    // other holds unspent tokens, so each is called until it refuses; by then every lease is spent.
    const untilRefused = async (gateway: AppProcess) => {
      const statuses: number[] = [];
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (;;) {
            const { status } = await call(gateway, '/api/v1/keys/me', { headers: bearer(apiKey) });
            statuses.push(status);
            if (status !== 200) return;
          }
        }),
      );
      return statuses;
    };
    const [viaA, viaB] = await Promise.all([untilRefused(a), untilRefused(b)]);
    const passed = [...viaA, ...viaB].filter((status) => status === 200).length;
    const refill = Math.ceil((Date.now() - started) / 60_000) + 1;
    expect(passed).toBeGreaterThanOrEqual(120);
    expect(passed).toBeLessThanOrEqual(120 + refill);
    expect([...viaA, ...viaB].filter((status) => status !== 200).every((status) => status === 429)).toBe(true);
    expect((await call(a, '/api/v1/keys/me', { headers: bearer(apiKey) })).status).toBe(429);
    expect((await call(b, '/api/v1/keys/me', { headers: bearer(apiKey) })).status).toBe(429);
  });

  it('limits keyless public routes per client address', async () => {
    const ip = clientIp();
    const statuses = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await call(a, '/api/v1/txb/status', { ip })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const refused = await call(b, '/api/v1/keys/subscribe', { method: 'POST', ip });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-limit')).toBe('5');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const other = await call(a, '/api/v1/keys/subscribe', { method: 'POST' });
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('4');
  });

  it('counts failed key attempts in a bucket of their own: past it 429, while a valid key from there still passes', async () => {
    const ip = clientIp();
    for (let i = 0; i < 5; i += 1) {
      expect((await call(a, '/api/v1/keys/me', { ip, headers: bearer(newApiKey()) })).status).toBe(401);
    }
    // The failure bucket is empty: a key that is not valid is 429 now, on either gateway, with or without a key.
    const guessed = await call(b, '/api/v1/keys/me', { ip, headers: bearer(newApiKey()) });
    expect(guessed.status).toBe(429);
    expect(Number(guessed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await call(a, '/api/v1/keys/me', { ip })).status).toBe(429);
    // A valid key the gateway has never seen, from the same address, is looked up and passes.
    const apiKey = service.key(standardKey('unbraked'));
    expect((await call(a, '/api/v1/keys/me', { ip, headers: bearer(apiKey) })).status).toBe(200);
    expect(service.introspections.filter((entry) => entry.apiKey === apiKey)).toHaveLength(1);
    // The public per-IP bucket never paid for the failures.
    const publicCall = await call(a, '/api/v1/txb/status', { ip });
    expect(publicCall.status).toBe(200);
    expect(publicCall.headers.get('ratelimit-remaining')).toBe('4');
  });

  it('answers 503 with Retry-After when the subscription service cannot answer about a key', async () => {
    const response = await call(a, '/api/v1/keys/me', { headers: bearer(service.key('hang-up')) });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(await response.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  it('does not limit its own health, metrics and unowned paths as keyed routes', async () => {
    const health = await call(a, '/health/ready');
    expect(health.status).toBe(200);
    expect(health.headers.get('ratelimit-limit')).toBeNull();
    const unowned = await call(a, '/api/v1/elsewhere');
    expect(unowned.status).toBe(404);
  });
});

describe('a gateway whose Redis dies', () => {
  it('keeps limiting in process, answering at once: the burst passes, then 429', async () => {
    const redis = await privateRedis();
    const service = await fakeSubscription(TOKEN);
    // A long Redis timeout: a call that waited for it would take seconds, one decided in process does not.
    const gateway = await startApp(
      'gateway',
      gatewayEnv(service, { REDIS_URL: redis.url, RATE_LIMIT_REDIS_TIMEOUT_MS: '10000' }),
    );
    try {
      // One token a minute, so the count below cannot be blurred by a refill however slow the machine.
      const apiKey = service.key(standardKey('outage', 1));
      const before = await call(gateway, '/api/v1/keys/me', { headers: bearer(apiKey) });
      expect(before.headers.get('ratelimit-remaining')).toBe('119');
      await redis.kill();
      await sleep(100);
      const timed = async () => {
        const started = Date.now();
        const response = await call(gateway, '/api/v1/keys/me', { headers: bearer(apiKey) });
        return { status: response.status, ms: Date.now() - started };
      };
      // The fallback continues the key's bucket from the level Redis last reported: 119 more, 120 in all.
      const burst = await Promise.all(Array.from({ length: 119 }, timed));
      expect(burst.map((answer) => answer.status)).toEqual(Array(119).fill(200));
      const refused = await timed();
      expect(refused.status).toBe(429);
      expect(Math.max(...burst.map((answer) => answer.ms), refused.ms)).toBeLessThan(10_000);
      expect((await call(gateway, '/health/ready')).status).toBe(200);
      const metrics = await (await call(gateway, '/metrics')).text();
      expect(metrics).toMatch(/rate_limit_degraded\{app="gateway"\} 1/);
      expect(metrics).toMatch(/rate_limit_decisions_total\{store="local",outcome="refused",app="gateway"\} [1-9]/);
      expect(gateway.lines.filter((line) => line.includes('Redis does not answer'))).toHaveLength(1);
    } finally {
      await gateway.stop();
      service.close();
      await redis.kill();
    }
  }, 90_000);
});
