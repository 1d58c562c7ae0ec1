/**
 * The rate limiter against a real Redis (REDIS_URL, default redis://127.0.0.1:6379): the Lua token bucket, one
 * bucket shared by two limiters, and the in-process fallback when Redis is gone or stops answering.
 */
import { randomUUID } from 'node:crypto';
import { AddressInfo, Server, Socket, createServer } from 'node:net';
import { RedisClient, RedisSettings, closeRedisConnection, createRedisConnection } from '@rp/platform';
import { Registry } from 'prom-client';
import { RateLimiter } from './rate-limiter';
import { createRateLimitRedis, settled } from './rate-limit-redis';
import { RedisTokenBuckets } from './redis-token-buckets';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const SETTINGS: RedisSettings = { url: REDIS_URL, host: '', port: 0, db: 0 };
const STANDARD = { capacity: 120, refillPerMinute: 60 };
/** A bucket that gains one token a minute: how long a test takes cannot matter to it. */
const SLOW = { capacity: 120, refillPerMinute: 1 };
const TIMEOUT_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the rate limiter on Redis', () => {
  let prefix: string;
  const clients: RedisClient[] = [];
  let admin: RedisClient;

  async function client(settings = SETTINGS, waitMs = 2000): Promise<RedisClient> {
    const redis = createRateLimitRedis(settings, TIMEOUT_MS);
    clients.push(redis);
    await settled(redis, waitMs);
    return redis;
  }

  function limiter(redis: RedisClient, registry = new Registry()): RateLimiter {
    return new RateLimiter(redis, registry, { keyPrefix: prefix, retryRedisAfterMs: 300 });
  }

  beforeAll(() => {
    admin = createRedisConnection(SETTINGS, 'rate-limit-test-admin');
  });

  beforeEach(() => {
    prefix = `rl-test:${randomUUID()}:`;
  });

  afterEach(async () => {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await Promise.all(clients.splice(0).map((redis) => closeRedisConnection(redis)));
  });

  afterAll(async () => {
    await closeRedisConnection(admin);
  });

  it('passes 120 immediate takes, refuses the next for about a second, then passes one more', async () => {
    const buckets = new RedisTokenBuckets(await client(), prefix);
    const started = Date.now();
    const takes = await Promise.all(Array.from({ length: 120 }, () => buckets.take('key:k1', STANDARD)));
    expect(takes.every((take) => take.allowed)).toBe(true);
    // On a busy machine a second may pass while they are taken: each second refills one token, which then passes.
    let refused = await buckets.take('key:k1', STANDARD);
    let extra = 0;
    while (refused.allowed) {
      extra += 1;
      refused = await buckets.take('key:k1', STANDARD);
    }
    const elapsed = Date.now() - started;
    expect(extra).toBeLessThanOrEqual(Math.floor(elapsed / 1000));
    expect(refused).toMatchObject({ allowed: false, limit: 120, remaining: 0 });
    // The next token is due within a second, and the bucket is full again two minutes after it was emptied.
    expect(refused.msUntilOne).toBeGreaterThan(0);
    expect(refused.msUntilOne).toBeLessThanOrEqual(1000);
    expect(refused.msUntilFull).toBeGreaterThan(120_000 - elapsed - 1000);
    expect(refused.msUntilFull).toBeLessThanOrEqual(120_000);
    const ttl = await admin.pttl(`${prefix}key:k1`);
    expect(ttl).toBeGreaterThan(120_000 - elapsed - 2000);
    expect(ttl).toBeLessThanOrEqual(120_000);
    await sleep(refused.msUntilOne + 50);
    expect((await buckets.take('key:k1', STANDARD)).allowed).toBe(true);
    expect((await buckets.take('key:k1', STANDARD)).allowed).toBe(false);
  });

  it('takes the buckets asked for in one turn in one script call, each with its own exact answer', async () => {
    const redis = await client();
    const calls = jest.spyOn(redis, 'evalsha');
    const buckets = new RedisTokenBuckets(redis, prefix);
    const small = { capacity: 3, refillPerMinute: 60 };
    const takes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => buckets.take(i % 2 === 0 ? 'key:even' : 'key:odd', small)),
    );
    expect(calls).toHaveBeenCalledTimes(1);
    expect(takes.map((take) => take.allowed)).toEqual([true, true, true, true, true, true, false, false, false, false]);
    expect(takes.map((take) => take.remaining)).toEqual([2, 2, 1, 1, 0, 0, 0, 0, 0, 0]);
  });

  it('looks without taking or writing when the cost is 0', async () => {
    const buckets = new RedisTokenBuckets(await client(), prefix);
    expect(await buckets.take('ip:10.0.0.2', STANDARD, 0)).toMatchObject({ allowed: true, remaining: 120 });
    expect(await admin.exists(`${prefix}ip:10.0.0.2`)).toBe(0);
  });

  it('shares one bucket between two limiters with their own connections', async () => {
    const [a, b] = [limiter(await client()), limiter(await client())];
    const [viaA, viaB] = await Promise.all([
      Promise.all(Array.from({ length: 60 }, () => a.take('key:shared', SLOW))),
      Promise.all(Array.from({ length: 60 }, () => b.take('key:shared', SLOW))),
    ]);
    expect([...viaA, ...viaB].every((take) => take.allowed)).toBe(true);
    expect((await a.take('key:shared', SLOW)).allowed).toBe(false);
    expect((await b.take('key:shared', SLOW)).allowed).toBe(false);
    expect(a.degraded || b.degraded).toBe(false);
  });

  it('limits in process when Redis is not there, answering at once', async () => {
    const registry = new Registry();
    const dead = limiter(await client({ host: '127.0.0.1', port: await closedPort(), db: 0 }, 200), registry);
    const takes = [];
    for (let i = 0; i < 121; i += 1) takes.push(await dead.take('key:k2', SLOW));
    expect(takes.slice(0, 120).every((take) => take.allowed)).toBe(true);
    expect(takes[120]).toMatchObject({ allowed: false, remaining: 0, limit: 120 });
    expect(takes[120].msUntilOne).toBeGreaterThan(0);
    expect(dead.degraded).toBe(true);
    const metrics = await registry.metrics();
    expect(metrics).toContain('rate_limit_degraded 1');
    expect(metrics).toMatch(/rate_limit_decisions_total\{store="local",outcome="refused"\} 1/);
    // Every take was decided in process, none waited for Redis: a connection that is not up is not asked.
    expect(metrics).toMatch(/rate_limit_decisions_total\{store="local",outcome="allowed"\} 120/);
    expect(metrics).not.toMatch(/store="redis"/);
  });

  it('falls back within the timeout when Redis stops answering, and shares buckets again once it answers', async () => {
    const relay = await freezableRelay(new URL(REDIS_URL));
    try {
      const registry = new Registry();
      // A long command timeout here, so "waited for it" and "did not" cannot be confused on a busy machine.
      const timeoutMs = 1500;
      const redis = createRateLimitRedis({ host: '127.0.0.1', port: relay.port, db: 0 }, timeoutMs);
      clients.push(redis);
      await settled(redis, 2000);
      const retryRedisAfterMs = 3000;
      const limited = new RateLimiter(redis, registry, { keyPrefix: prefix, retryRedisAfterMs });
      expect(await limited.take('key:k3', SLOW)).toMatchObject({ allowed: true, remaining: 119 });
      relay.freeze();
      const started = Date.now();
      // The fallback continues the bucket from where Redis left it, once the command timed out (not for ever).
      expect(await limited.take('key:k3', SLOW)).toMatchObject({ allowed: true, remaining: 118 });
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(timeoutMs - 50);
      expect(waited).toBeLessThan(timeoutMs + 10_000);
      expect(limited.degraded).toBe(true);
      // Right after a failure Redis is left alone: the next take does not wait for another timeout.
      const quick = Date.now();
      expect(await limited.take('key:k3', SLOW)).toMatchObject({ allowed: true, remaining: 117 });
      expect(Date.now() - quick).toBeLessThan(timeoutMs);
      relay.thaw();
      // Once Redis is asked again, and answers, buckets are shared again.
      await sleep(retryRedisAfterMs + 100);
      expect((await limited.take('key:k3', SLOW)).allowed).toBe(true);
      expect(limited.degraded).toBe(false);
      expect(await registry.metrics()).toContain('rate_limit_degraded 0');
    } finally {
      await relay.close();
    }
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A TCP relay to Redis that can stop passing bytes (a Redis that hangs without closing) and start again. */
async function freezableRelay(target: URL) {
  let frozen = false;
  const held: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const pipe = (from: Socket, to: Socket) =>
    from.on('data', (chunk) => (frozen ? held.push(() => to.write(chunk)) : to.write(chunk)));
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => (client.destroy(), upstream.destroy()));
    }
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    freeze: () => (frozen = true),
    thaw: () => {
      frozen = false;
      for (const release of held.splice(0)) release();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
