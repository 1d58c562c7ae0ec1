import Redis from 'ioredis';

/** Keys unlinked per command while a stack's keys are removed. */
const BATCH = 500;

/**
 * Removes every key under `prefix` (a stack's notifications prefix: its queues, lanes, cooldowns, caches) from the
 * Redis at `url`, so that test and benchmark stacks leave nothing behind in a Redis they share (CI's, a
 * developer's). Returns how many went. Best effort: a Redis that does not answer (a test that stopped it) leaves
 * the keys and returns 0 rather than failing the stack's close.
 */
export async function removeKeys(url: string, prefix: string): Promise<number> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  let removed = 0;
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', BATCH);
      cursor = next;
      if (keys.length > 0) removed += await redis.unlink(...keys);
    } while (cursor !== '0');
  } catch {
    // Nothing to clean up with: the keys stay, the stack still closes.
  } finally {
    redis.disconnect();
  }
  return removed;
}
