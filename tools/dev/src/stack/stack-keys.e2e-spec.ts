/**
 * A stack (what every e2e test and benchmark starts) leaves nothing in the Redis it shares with other runs: its
 * notifications app's queues, lanes and caches are removed when it closes, and nobody else's keys are touched.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { startStack } from './start-stack';

describe('a stack in a shared Redis', () => {
  it("removes its own keys on close and no one else's", async () => {
    const stack = await startStack({ apps: ['notifications'], ledgerIntervalMs: 250 });
    const redis = new Redis(stack.redisUrl);
    const neighbour = `neighbour${randomBytes(4).toString('hex')}:kept`;
    try {
      await redis.set(neighbour, '1');
      const keysOf = async (prefix: string) => (await redis.keys(`${prefix}*`)).length;
      // The monitor's scheduler and the queues write under the prefix from the start (a ledger closes every 250 ms).
      for (let tries = 0; (await keysOf(stack.keyPrefix)) === 0 && tries < 100; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await keysOf(stack.keyPrefix)).toBeGreaterThan(0);
      await stack.close();
      expect(await keysOf(stack.keyPrefix)).toBe(0);
      expect(await redis.get(neighbour)).toBe('1');
    } finally {
      await redis.del(neighbour);
      redis.disconnect();
    }
  }, 120_000);
});
