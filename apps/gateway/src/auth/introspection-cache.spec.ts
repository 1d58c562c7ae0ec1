import { KeyIntrospection } from '@rp/contracts';
import { IntrospectionCache, fingerprint } from './introspection-cache';

const KEY = 'rp_test_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const ID = fingerprint(KEY);
const START = Date.parse('2027-01-01T00:00:00.000Z');

function active(expiresAt: string, keyId = 'k1'): KeyIntrospection {
  return {
    active: true,
    keyId,
    tier: 'standard',
    rateLimit: 60,
    burst: 120,
    expiresAt,
    email: null,
    account: 'partner:k1',
  };
}

/** Lets a background call and what follows it run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
}

function setup(options: { activeTtlMs?: number; maxEntries?: number; refreshAheadMs?: number } = {}) {
  let now = START;
  const cache = new IntrospectionCache({
    activeTtlMs: options.activeTtlMs ?? 5000,
    maxEntries: options.maxEntries,
    refreshAheadMs: options.refreshAheadMs,
    now: () => now,
  });
  const calls: string[] = [];
  let answer: KeyIntrospection = active('2027-02-01T00:00:00.000Z');
  const ask = async (apiKey: string) => {
    calls.push(apiKey);
    return answer;
  };
  return {
    cache,
    calls,
    ask,
    advance: (ms: number) => (now += ms),
    answer: (next: KeyIntrospection) => (answer = next),
  };
}

describe('the introspection cache', () => {
  it('reuses an active answer for the TTL, then asks again', async () => {
    const { cache, calls, ask, advance } = setup({ refreshAheadMs: 0 });
    await cache.lookup(KEY, ID, ask);
    advance(4999);
    expect(await cache.lookup(KEY, ID, ask)).toMatchObject({ active: true, keyId: 'k1' });
    expect(calls).toHaveLength(1);
    advance(1);
    expect(cache.cachedRefreshing(KEY, ID, ask)).toBeUndefined(); // past the TTL: never served, not even at once
    await cache.lookup(KEY, ID, ask);
    expect(calls).toHaveLength(2);
  });

  it('asks again in the background in the last fifth of the TTL, answering from the cache meanwhile', async () => {
    const { cache, calls, ask, advance, answer } = setup();
    await cache.lookup(KEY, ID, ask);
    advance(3999);
    expect(cache.cachedRefreshing(KEY, ID, ask)).toMatchObject({ active: true, keyId: 'k1' });
    expect(calls).toHaveLength(1); // not due yet
    advance(1);
    answer(active('2027-02-01T00:00:00.000Z', 'k1-renewed'));
    // Due: the call is answered from the cache at once, and one re-check goes out, however many calls come.
    expect(cache.cachedRefreshing(KEY, ID, ask)).toMatchObject({ active: true, keyId: 'k1' });
    expect(cache.cachedRefreshing(KEY, ID, ask)).toMatchObject({ active: true, keyId: 'k1' });
    expect(calls).toHaveLength(2);
    await flush();
    // The new answer holds for a whole TTL from now: the key's calls never found the cache empty.
    advance(3999);
    expect(cache.cachedRefreshing(KEY, ID, ask)).toMatchObject({ active: true, keyId: 'k1-renewed' });
    expect(calls).toHaveLength(2);
  });

  it('sees a revocation by the background re-check, before the old answer would have ended', async () => {
    const { cache, ask, advance, answer } = setup();
    await cache.lookup(KEY, ID, ask);
    advance(4500);
    answer({ active: false, reason: 'revoked' });
    expect(cache.cachedRefreshing(KEY, ID, ask)?.active).toBe(true); // the answer of 4.5 s ago, within its TTL
    await flush();
    expect(cache.cachedRefreshing(KEY, ID, ask)).toEqual({ active: false, reason: 'revoked' });
  });

  it('forgets a failed background re-check: the answer stands until its TTL ends, the next call tries again', async () => {
    const { cache, calls, ask, advance } = setup();
    await cache.lookup(KEY, ID, ask);
    advance(4500);
    let failures = 0;
    const failing = async () => {
      failures += 1;
      throw new Error('down');
    };
    expect(cache.cachedRefreshing(KEY, ID, failing)?.active).toBe(true);
    await flush(); // no unhandled rejection
    expect(cache.cachedRefreshing(KEY, ID, failing)?.active).toBe(true);
    await flush();
    expect(failures).toBe(2);
    advance(500);
    expect(cache.cachedRefreshing(KEY, ID, ask)).toBeUndefined();
    expect(calls).toHaveLength(1);
  });

  it('never re-checks a refused key ahead, nor an active answer past the key expiry', async () => {
    const { cache, calls, ask, advance, answer } = setup();
    answer({ active: false, reason: 'unknown' });
    await cache.lookup(KEY, ID, ask);
    advance(1999);
    expect(cache.cachedRefreshing(KEY, ID, ask)).toEqual({ active: false, reason: 'unknown' });
    advance(1);
    answer(active(new Date(START + 3000).toISOString()));
    await cache.lookup(KEY, ID, ask);
    advance(4500); // in the last fifth of the TTL, but the key expired at START + 3000
    expect(cache.cachedRefreshing(KEY, ID, ask)).toMatchObject({ active: false, reason: 'expired' });
    expect(calls).toHaveLength(2);
  });

  it('keeps a negative answer about 2 s', async () => {
    const { cache, calls, ask, advance, answer } = setup();
    answer({ active: false, reason: 'unknown' });
    await cache.lookup(KEY, ID, ask);
    advance(1999);
    expect(await cache.lookup(KEY, ID, ask)).toEqual({ active: false, reason: 'unknown' });
    expect(calls).toHaveLength(1);
    advance(1);
    await cache.lookup(KEY, ID, ask);
    expect(calls).toHaveLength(2);
  });

  it('never serves an active answer past the key expiry: it is expired at once, without asking', async () => {
    const { cache, calls, ask, advance, answer } = setup();
    answer(active(new Date(START + 1000).toISOString()));
    expect((await cache.lookup(KEY, ID, ask)).active).toBe(true);
    expect(cache.cached(ID)?.active).toBe(true);
    advance(1000);
    expect(await cache.lookup(KEY, ID, ask)).toEqual({
      active: false,
      reason: 'expired',
      expiresAt: new Date(START + 1000).toISOString(),
    });
    expect(calls).toHaveLength(1);
  });

  it('treats an "active" answer whose expiry has already passed as expired, cached or not', async () => {
    const { cache, ask, answer } = setup({ activeTtlMs: 0 });
    answer(active(new Date(START - 1).toISOString()));
    expect(await cache.lookup(KEY, ID, ask)).toMatchObject({ active: false, reason: 'expired' });
  });

  it('does not cache at all with a TTL of 0', async () => {
    const { cache, calls, ask } = setup({ activeTtlMs: 0 });
    await cache.lookup(KEY, ID, ask);
    await cache.lookup(KEY, ID, ask);
    expect(calls).toHaveLength(2);
    expect(cache.cached(ID)).toBeUndefined();
  });

  it('shares one call among concurrent lookups of one key', async () => {
    const { cache } = setup();
    let release: (answer: KeyIntrospection) => void = () => undefined;
    let calls = 0;
    const ask = () => {
      calls += 1;
      return new Promise<KeyIntrospection>((resolve) => (release = resolve));
    };
    const lookups = Promise.all([cache.lookup(KEY, ID, ask), cache.lookup(KEY, ID, ask), cache.lookup(KEY, ID, ask)]);
    release(active('2027-02-01T00:00:00.000Z'));
    const answers = await lookups;
    expect(calls).toBe(1);
    expect(answers.every((answer) => answer.active)).toBe(true);
  });

  it('does not remember a failed call: every waiter sees the failure, the next lookup asks again', async () => {
    const { cache, calls, ask } = setup();
    const failing = () => Promise.reject(new Error('down'));
    await expect(Promise.all([cache.lookup(KEY, ID, failing), cache.lookup(KEY, ID, failing)])).rejects.toThrow('down');
    await cache.lookup(KEY, ID, ask);
    expect(calls).toHaveLength(1);
  });

  it('holds at most maxEntries, dropping the oldest', async () => {
    const { cache, ask } = setup({ maxEntries: 3 });
    const keys = ['a', 'b', 'c', 'd'].map((suffix) => KEY.slice(0, -1) + suffix);
    for (const key of keys) await cache.lookup(key, fingerprint(key), ask);
    expect(cache.size).toBe(3);
    expect(cache.cached(fingerprint(keys[0]))).toBeUndefined();
    expect(cache.cached(fingerprint(keys[3]))?.active).toBe(true);
  });
});
