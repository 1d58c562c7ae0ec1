import { performance } from 'node:perf_hooks';
import { closeRedisConnection } from '@rp/platform';
import { Registry } from 'prom-client';
import { RateLimiter } from './rate-limiter';
import { createRateLimitRedis, settled } from './rate-limit-redis';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 3);

/**
 * The gateway's rate limiter alone against Redis (REDIS_URL): 16 loops taking from one busy key for SECONDS, with
 * leases of 1 (a Redis script run per call, as before ADR 018) and of 20, interleaved twice (the machine is noisy).
 */
async function run(maxLease: number): Promise<{ perSecond: number; p50us: number; p99us: number }> {
  const redis = createRateLimitRedis(
    { url: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379', host: '', port: 0, db: 0 },
    250,
  );
  await settled(redis, 2000);
  const limiter = new RateLimiter(redis, new Registry(), { keyPrefix: `ab:${maxLease}:${Date.now()}:`, maxLease });
  const limits = { capacity: 10_000_000, refillPerMinute: 10_000_000 };
  const times: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await limiter.take('key:bench', limits);
        times.push(performance.now() - t);
      }
    }),
  );
  await closeRedisConnection(redis);
  times.sort((a, b) => a - b);
  return {
    perSecond: Math.round(times.length / SECONDS),
    p50us: Math.round(times[Math.floor(times.length / 2)] * 1000),
    p99us: Math.round(times[Math.floor(times.length * 0.99)] * 1000),
  };
}

void (async () => {
  const rows = ['| lease | takes/s | p50 | p99 |', '|---|---|---|---|'];
  for (const lease of [1, 20, 1, 20]) {
    const { perSecond, p50us, p99us } = await run(lease);
    rows.push(`| ${lease} | ${perSecond} | ${(p50us / 1000).toFixed(3)} ms | ${(p99us / 1000).toFixed(3)} ms |`);
  }
  process.stdout.write(`${rows.join('\n')}\n`);
})();
