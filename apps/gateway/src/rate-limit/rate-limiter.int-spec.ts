/**
 * The rate limiter against a real Redis (REDIS_URL, default redis://127.0.0.1:6379): the Lua token bucket, one
 * bucket shared by two limiters, and the in-process fallback when Redis is gone or stops answering.
 */
import { randomUUID } from 'node:crypto';
import { AddressInfo, Server, Socket, createServer } from 'node:net';
import { RedisSettings, closeRedisConnection } from '@rp/platform';
import Redis from 'ioredis';
import { Registry } from 'prom-client';
import { RateLimiter } from './rate-limiter';
import { createRateLimitRedis, settled } from './rate-limit-redis';
import { RedisTokenBuckets } from './redis-token-buckets';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const SETTINGS: RedisSettings = { url: REDIS_URL, host: '', port: 0, db: 0 };
const STANDARD = { capacity: 120, refillPerMinute: 60 };
const TIMEOUT_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the rate limiter on Redis', () => {
  let prefix: string;
  const clients: Redis[] = [];
  let admin: Redis;

  async function client(settings = SETTINGS, waitMs = 2000): Promise<Redis> {
    const redis = createRateLimitRedis(settings, TIMEOUT_MS);
    clients.push(redis);
    await settled(redis, waitMs);
    return redis;
  }

  function limiter(redis: Redis, registry = new Registry()): RateLimiter {
    return new RateLimiter(redis, registry, { keyPrefix: prefix, retryRedisAfterMs: 300 });
  }

  beforeAll(() => {
    admin = new Redis(REDIS_URL);
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
    await admin.quit();
  });

  it('passes 120 immediate takes, refuses the 121st for about a second, then passes one more', async () => {
    const buckets = new RedisTokenBuckets(await client(), prefix);
    const takes = await Promise.all(Array.from({ length: 120 }, () => buckets.take('key:k1', STANDARD)));
    expect(takes.every((take) => take.allowed)).toBe(true);
    expect(Math.min(...takes.map((take) => take.remaining))).toBe(0);
    const refused = await buckets.take('key:k1', STANDARD);
    expect(refused).toMatchObject({ allowed: false, limit: 120, remaining: 0 });
    expect(refused.msUntilOne).toBeGreaterThan(700);
    expect(refused.msUntilOne).toBeLessThanOrEqual(1000);
    expect(refused.msUntilFull).toBeGreaterThan(119_000);
    const ttl = await admin.pttl(`${prefix}key:k1`);
    expect(ttl).toBeGreaterThan(119_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
    await sleep(refused.msUntilOne + 50);
    expect((await buckets.take('key:k1', STANDARD)).allowed).toBe(true);
    expect((await buckets.take('key:k1', STANDARD)).allowed).toBe(false);
  });

  it('looks without taking or writing when the cost is 0', async () => {
    const buckets = new RedisTokenBuckets(await client(), prefix);
    expect(await buckets.take('ip:10.0.0.2', STANDARD, 0)).toMatchObject({ allowed: true, remaining: 120 });
    expect(await admin.exists(`${prefix}ip:10.0.0.2`)).toBe(0);
  });

  it('shares one bucket between two limiters with their own connections', async () => {
    const [a, b] = [limiter(await client()), limiter(await client())];
    const [viaA, viaB] = await Promise.all([
      Promise.all(Array.from({ length: 60 }, () => a.take('key:shared', STANDARD))),
      Promise.all(Array.from({ length: 60 }, () => b.take('key:shared', STANDARD))),
    ]);
    expect([...viaA, ...viaB].every((take) => take.allowed)).toBe(true);
    expect((await a.take('key:shared', STANDARD)).allowed).toBe(false);
    expect((await b.take('key:shared', STANDARD)).allowed).toBe(false);
    expect(a.degraded || b.degraded).toBe(false);
  });

  it('limits in process when Redis is not there, answering at once', async () => {
    const registry = new Registry();
    const dead = limiter(await client({ host: '127.0.0.1', port: await closedPort(), db: 0 }, 200), registry);
    const started = Date.now();
    const takes = [];
    for (let i = 0; i < 121; i += 1) takes.push(await dead.take('key:k2', STANDARD));
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 5);
    expect(takes.slice(0, 120).every((take) => take.allowed)).toBe(true);
    expect(takes[120]).toMatchObject({ allowed: false, remaining: 0, limit: 120 });
    expect(takes[120].msUntilOne).toBeGreaterThan(0);
    expect(dead.degraded).toBe(true);
    const metrics = await registry.metrics();
    expect(metrics).toContain('rate_limit_degraded 1');
    expect(metrics).toMatch(/rate_limit_decisions_total\{store="local",outcome="refused"\} 1/);
  });

  it('falls back within the timeout when Redis stops answering, and shares buckets again once it answers', async () => {
    const relay = await freezableRelay(new URL(REDIS_URL));
    try {
      const registry = new Registry();
      const limited = limiter(await client({ host: '127.0.0.1', port: relay.port, db: 0 }), registry);
      expect(await limited.take('key:k3', STANDARD)).toMatchObject({ allowed: true, remaining: 119 });
      relay.freeze();
      const started = Date.now();
      // The fallback continues the bucket from where Redis left it.
      expect(await limited.take('key:k3', STANDARD)).toMatchObject({ allowed: true, remaining: 118 });
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 150);
      expect(limited.degraded).toBe(true);
      const quick = Date.now();
      await limited.take('key:k3', STANDARD);
      expect(Date.now() - quick).toBeLessThan(20);
      relay.thaw();
      await sleep(400);
      expect((await limited.take('key:k3', STANDARD)).allowed).toBe(true);
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
