/**
 * The rate limiter against a real Redis (REDIS_URL, default redis://127.0.0.1:6379): the Lua token bucket, one
 * bucket shared by two limiters, and the in-process fallback when Redis is gone or stops answering.
 */
import { randomUUID } from 'node:crypto';
import { AddressInfo, Server, Socket, createServer } from 'node:net';
import { RedisClient, RedisSettings, closeRedisConnection, createRedisConnection } from '@rp/platform';
import { Registry } from 'prom-client';
import { DEFAULT_MAX_LEASE, RateLimiter } from './rate-limiter';
import { createRateLimitRedis, settled } from './rate-limit-redis';
import { RedisTokenBuckets } from './redis-token-buckets';
import { BucketDecision, BucketLimits } from './token-bucket';
import { BUSY_WITHIN_MS, leaseSize } from './token-leases';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const SETTINGS: RedisSettings = { url: REDIS_URL, host: '', port: 0, db: 0 };
const STANDARD = { capacity: 120, refillPerMinute: 60 };
/** A bucket that gains one token a minute: how long a test takes cannot matter to it. */
const SLOW = { capacity: 120, refillPerMinute: 1 };
/**
 * The command timeout of the clients these tests share a bucket through. Generous on purpose: a command slower than
 * it sends a limiter to its in-process buckets (degraded), where two replicas admit a burst each, which is the
 * designed fallback but not what the shared-bucket tests check. On a loaded CI machine 100 ms was exceeded. The
 * timeout path itself has its own test below, with its own relay and timeout.
 */
const TIMEOUT_MS = 2_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `check` holds, asking every 20 ms (the test's own timeout is the only deadline). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await sleep(20);
}

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
    // `askedAt` is taken before each take: Redis computed `msUntilOne` no earlier than that, so the promised token
    // cannot be due before `askedAt + msUntilOne` (a due time taken after the answer arrives is late by the round
    // trip and the checks below, which on a loaded machine was more than the tolerance).
    let askedAt = Date.now();
    let refused = await buckets.take('key:k1', STANDARD);
    let extra = 0;
    while (refused.allowed) {
      extra += 1;
      askedAt = Date.now();
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
    // The token the bucket promised comes when it said (Redis's clock): wait for that moment as Redis sees it, then
    // one passes and the one after does not, however late this test looks (a late look only adds refill, counted).
    const due = askedAt + refused.msUntilOne;
    await until(async () => (await buckets.take('key:k1', STANDARD, 0)).allowed);
    expect(Date.now()).toBeGreaterThanOrEqual(due - 50);
    const lookedAt = Date.now();
    expect((await buckets.take('key:k1', STANDARD)).allowed).toBe(true);
    let more = 0;
    while ((await buckets.take('key:k1', STANDARD)).allowed) more += 1;
    expect(more).toBeLessThanOrEqual(Math.floor((Date.now() - lookedAt) / 1000));
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

  it('shares one bucket between two limiters: hammered, they admit exactly its burst', async () => {
    const [a, b] = [limiter(await client()), limiter(await client())];
    const started = Date.now();
    const admitted = (await hammer([a, b], 'key:shared', SLOW)).filter((answer) => answer.allowed).length;
    // Tokens only leave the shared bucket, and each limiter stops once its lease and the bucket are both empty.
    expect(admitted).toBeGreaterThanOrEqual(SLOW.capacity);
    expect(admitted).toBeLessThanOrEqual(SLOW.capacity + refillSince(started, SLOW));
    expect(a.degraded || b.degraded).toBe(false);
  });

  it('never reports more remaining than is left, whichever replica spends', async () => {
    const [a, b] = [limiter(await client()), limiter(await client())];
    const started = Date.now();
    const turns = await inTurns([a, b], 'key:truth', SLOW);
    const admitted = turns.flat().filter((answer) => answer.allowed).length;
    expect(admitted).toBeGreaterThanOrEqual(SLOW.capacity);
    expect(admitted).toBeLessThanOrEqual(SLOW.capacity + refillSince(started, SLOW));
    // Leases were used (more than one token granted at once), or this would prove nothing about them.
    expect(turns.some((answers) => answers.some((answer) => (answer.granted ?? 1) > 1))).toBe(true);
    expectNeverAboveTruth(turns, refillSince(started, SLOW));
    expect(a.degraded || b.degraded).toBe(false);
  });

  it('after a quiet spell that refilled the bucket, admits at most its burst plus one lease per replica', async () => {
    const [a, b] = [limiter(await client()), limiter(await client())];
    // Busy for a moment on each replica: leases grow, and each may keep tokens it has not spent.
    for (const replica of [a, b]) for (let i = 0; i < 30; i += 1) await replica.take('key:quiet', SLOW);
    await admin.del(`${prefix}key:quiet`); // a bucket refilled to the full is an absent one
    const started = Date.now();
    const answers = await hammer([a, b], 'key:quiet', SLOW);
    const admitted = answers.filter((answer) => answer.allowed).length;
    expect(admitted).toBeGreaterThanOrEqual(SLOW.capacity);
    expect(admitted).toBeLessThanOrEqual(
      SLOW.capacity + 2 * leaseSize(SLOW, DEFAULT_MAX_LEASE) + refillSince(started, SLOW),
    );
  });

  it('asks Redis once per lease for a busy key, and exactly for a quiet one', async () => {
    const redis = await client();
    const asked = jest.spyOn(redis, 'evalsha');
    const busy = limiter(redis);
    for (let i = 0; i < 100; i += 1) expect((await busy.take('key:busy', SLOW)).allowed).toBe(true);
    // Leases of 1, 2, 4, 8 and then 12 (a tenth of 120), topped up ahead of need (from a quarter left, or earlier
    // when calls come faster than Redis answers): 100 calls cost under two dozen script runs, not 100.
    expect(asked.mock.calls.length).toBeLessThanOrEqual(
      4 + Math.ceil(100 / Math.floor((leaseSize(SLOW, DEFAULT_MAX_LEASE) * 3) / 4)) + 6,
    );
    const quiet = limiter(await client());
    expect(await quiet.take('key:calm', SLOW)).toMatchObject({ allowed: true, remaining: 119 });
    await sleep(BUSY_WITHIN_MS + 50); // quiet: the condition itself, not a wait for something to happen
    expect(await quiet.take('key:calm', SLOW)).toMatchObject({ allowed: true, remaining: 118 });
    // A look at the shared bucket agrees: nothing was leased beyond what was spent.
    expect(await quiet.take('key:calm', SLOW, 0)).toMatchObject({ remaining: 118 });
  });

  it('counts every decision once in rate_limit_decisions_total, those spent from a lease included', async () => {
    const registry = new Registry();
    const busy = limiter(await client(), registry);
    const count = (text: string, store: string) =>
      Number(
        new RegExp(`rate_limit_decisions_total\\{store="${store}",outcome="allowed"\\} (\\d+)`).exec(text)?.[1] ?? 0,
      );
    for (let i = 0; i < 60; i += 1) await busy.take('key:counted', SLOW);
    const first = await registry.metrics();
    expect(count(first, 'lease')).toBeGreaterThan(0);
    expect(count(first, 'redis') + count(first, 'lease')).toBe(60);
    // Read again, and after more calls: counted once, never reset by a scrape.
    expect(await registry.metrics()).toBe(first);
    for (let i = 0; i < 40; i += 1) await busy.take('key:counted', SLOW);
    const second = await registry.metrics();
    expect(count(second, 'redis') + count(second, 'lease')).toBe(100);
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
      // Right after a failure Redis is left alone: the next take does not ask it (no second timeout to wait for).
      const asked = jest.spyOn(redis, 'evalsha');
      expect(await limited.take('key:k3', SLOW)).toMatchObject({ allowed: true, remaining: 117 });
      expect(asked).not.toHaveBeenCalled();
      relay.thaw();
      // Once Redis is asked again, and answers, buckets are shared again.
      await until(async () => (await limited.take('key:k3', SLOW, 0), !limited.degraded));
      expect(asked).toHaveBeenCalled();
      expect((await limited.take('key:k3', SLOW)).allowed).toBe(true);
      expect(await registry.metrics()).toContain('rate_limit_degraded 0');
    } finally {
      await relay.close();
    }
  });
});

/**
 * Calls `take` on every limiter from 8 loops each, until every limiter refuses; the answers in the order they came.
 * A limiter refuses only once its own lease and the shared bucket are both empty, so at the end nothing is left.
 */
async function hammer(limiters: RateLimiter[], bucketId: string, limits: BucketLimits): Promise<BucketDecision[]> {
  const answers: BucketDecision[] = [];
  await Promise.all(
    limiters.flatMap((limiter) =>
      Array.from({ length: 8 }, async () => {
        for (;;) {
          const answer = await limiter.take(bucketId, limits);
          answers.push(answer);
          if (!answer.allowed) return;
        }
      }),
    ),
  );
  return answers;
}

/**
 * The limiters take in turns, each turn 1 to 8 calls at once on one limiter, until both refuse: every answer of a
 * turn is decided after the answers of earlier turns, so "what was left when it was decided" is observable.
 */
async function inTurns(limiters: RateLimiter[], bucketId: string, limits: BucketLimits): Promise<BucketDecision[][]> {
  const turns: BucketDecision[][] = [];
  const refused = new Set<RateLimiter>();
  for (let turn = 0; refused.size < limiters.length; turn += 1) {
    const limiter = limiters[turn % limiters.length];
    const answers = await Promise.all(
      Array.from({ length: 1 + ((turn * 5) % 8) }, () => limiter.take(bucketId, limits)),
    );
    if (answers.some((answer) => !answer.allowed)) refused.add(limiter);
    turns.push(answers);
  }
  return turns;
}

/** Tokens the bucket may have gained since `started` (whole tokens, one more for the one under way). */
function refillSince(started: number, limits: BucketLimits): number {
  return Math.ceil(((Date.now() - started) * limits.refillPerMinute) / 60_000) + 1;
}

/**
 * Each admitted answer's `RateLimit-Remaining` is at most what was left when it was decided: the calls admitted
 * after it, all of them, since the turns ran the bucket and every lease dry. Within one turn the order of decisions
 * is not observed, so an answer is allowed its turn's other admissions; plus the refill meanwhile.
 */
function expectNeverAboveTruth(turns: BucketDecision[][], refill: number): void {
  const admittedIn = turns.map((answers) => answers.filter((answer) => answer.allowed).length);
  const over = turns.flatMap((answers, turn) => {
    const left = admittedIn.slice(turn + 1).reduce((sum, n) => sum + n, 0) + admittedIn[turn] - 1;
    return answers
      .filter((answer) => answer.allowed && answer.remaining > left + refill)
      .map((answer) => ({ turn, reported: answer.remaining, left }));
  });
  expect(over).toEqual([]);
}

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
