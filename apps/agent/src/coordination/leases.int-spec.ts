import { openDocumentStore } from '@rp/persistence-store';
import { RedisClient, redisOptions } from '@rp/platform-core';
import type { Lease } from '../store/agent-store';
import { DatabaseLeases, type Leases, RedisLeases } from './leases';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

describe.each(['database', 'redis'] as const)('leases in the %s', (kind) => {
  let leases: Leases;
  let clock = 1_000_000;
  let close: () => Promise<void>;

  beforeAll(async () => {
    if (kind === 'database') {
      const store = await openDocumentStore({ driver: 'sqlite', file: undefined });
      leases = new DatabaseLeases(await store.collection<Lease>({ name: 'agent_leases' }), () => clock);
      close = () => store.close();
    } else {
      const redis = new RedisClient(redisOptions({ url: REDIS_URL, host: '', port: 6379, db: 0 }, 'agent-test'));
      leases = new RedisLeases(redis, `rp:agent-test:${process.pid}:${Date.now()}:`);
      close = async () => void (await redis.quit());
    }
  });

  afterAll(() => close());

  it('is held by one holder at a time, renewed by it, and free once released', async () => {
    expect(await leases.acquire('lock:w', 'a', 60_000)).toBe(true);
    expect(await leases.acquire('lock:w', 'b', 60_000)).toBe(false);
    expect(await leases.acquire('lock:w', 'a', 60_000)).toBe(true);
    expect(await leases.holder('lock:w')).toBe('a');
    await leases.release('lock:w', 'b'); // not b's to release
    expect(await leases.holder('lock:w')).toBe('a');
    await leases.release('lock:w', 'a');
    expect(await leases.acquire('lock:w', 'b', 60_000)).toBe(true);
  });

  it('passes to another holder once it has run out', async () => {
    expect(await leases.acquire('lock:x', 'a', 300)).toBe(true);
    expect(await leases.holder('lock:x')).toBe('a');
    // The event, not a sleep: the store itself says the 300 ms lease has run out (Redis expires the key).
    if (kind === 'database') clock += 301;
    await until(async () => (await leases.holder('lock:x')) === undefined, 'the lease running out');
    // b's lease is long: a is refused however slowly the next call comes.
    expect(await leases.acquire('lock:x', 'b', 60_000)).toBe(true);
    expect(await leases.acquire('lock:x', 'a', 300)).toBe(false);
    expect(await leases.holder('lock:x')).toBe('b');
  });

  it('lets exactly one of many racing holders win', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => leases.acquire('cooldown:w:p', `decision-${i}`, 60_000)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

/** Resolves once `condition` holds; the deadline only bounds a failure. */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
