import { BucketDecision, BucketLimits } from './token-bucket';
import { BUSY_WITHIN_MS, type LeaseSource, TokenLeases, leaseSize } from './token-leases';

const LIMITS: BucketLimits = { capacity: 100, refillPerMinute: 60 };

/** A shared bucket with `level` whole tokens and no refill, recording what each ask wanted. */
function sharedBucket(level: number) {
  const asks: Array<{ cost: number; want: number }> = [];
  const state = { level };
  const source = async (_id: string, limits: BucketLimits, cost: number, want: number): Promise<BucketDecision> => {
    asks.push({ cost, want });
    await Promise.resolve();
    if (state.level < cost) {
      return { allowed: false, limit: limits.capacity, remaining: state.level, msUntilOne: 1000, msUntilFull: 60_000 };
    }
    const granted = Math.min(want, state.level);
    state.level -= granted;
    return { allowed: true, limit: limits.capacity, remaining: state.level, msUntilOne: 0, msUntilFull: 1000, granted };
  };
  return { asks, state, source };
}

describe('token leases', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('sizes a lease at most a tenth of the bucket and at most the setting, never below 1', () => {
    expect(leaseSize({ capacity: 120, refillPerMinute: 60 }, 20)).toBe(12);
    expect(leaseSize({ capacity: 100_000, refillPerMinute: 60 }, 20)).toBe(20);
    expect(leaseSize({ capacity: 5, refillPerMinute: 60 }, 20)).toBe(1);
  });

  it('leases one token at a time to a quiet key: Redis decides each call and the count is exact', async () => {
    const bucket = sharedBucket(100);
    const leases = new TokenLeases(bucket.source, 20, 100, undefined, clock);
    expect(await leases.take('k', LIMITS)).toMatchObject({ allowed: true, remaining: 99 });
    now += BUSY_WITHIN_MS + 1;
    expect(await leases.take('k', LIMITS)).toMatchObject({ allowed: true, remaining: 98 });
    expect(bucket.asks).toEqual([
      { cost: 1, want: 1 },
      { cost: 1, want: 1 },
    ]);
  });

  it('doubles the lease while a key stays busy, up to its size, topping it up ahead of need', async () => {
    const bucket = sharedBucket(100);
    const spent: boolean[] = [];
    const leases = new TokenLeases(bucket.source, 20, 100, (allowed) => spent.push(allowed), clock);
    const answers = [];
    for (let i = 0; i < 40; i += 1) answers.push(await leases.take('k', LIMITS));
    expect(answers.every((answer) => answer.allowed)).toBe(true);
    // Two asks a call waited for (1, 2), then top-ups, each asked when what is left is down to a quarter of the lease
    // or to twice the calls that came while the previous ask was out (here one, so at 2 left), for what brings it back
    // to its doubled size (4 - 0, 8 - 2, 10 - 2, then 10 - 4): never more than one lease (10) held.
    expect(bucket.asks.map((ask) => ask.want)).toEqual([1, 2, 4, 6, 8, 6, 6, 6, 6]);
    // Every call but the two that asked was decided from the lease: the top-ups came before it ran dry.
    expect(spent.length).toBe(38);
    // From Redis: the shared level plus this replica's lease; from the lease: the lease only (what is certain).
    expect(answers[1]).toMatchObject({ remaining: 97 + 1 });
    expect(answers[2]).toMatchObject({ remaining: 0 });
  });

  it('lets the calls that arrive while a lease is asked for wait for it instead of asking too', async () => {
    const bucket = sharedBucket(100);
    const leases = new TokenLeases(bucket.source, 20, 100, undefined, clock);
    await leases.take('k', LIMITS); // busy from now on
    const answers = await Promise.all(Array.from({ length: 10 }, () => leases.take('k', LIMITS)));
    expect(answers.every((answer) => answer.allowed)).toBe(true);
    // 1, then 2 (the key is busy), then the nine calls that waited for that ask: 1 + 2 + 9 >= 11 (the doubling
    // alone, 4 then 6, took one more round trip); then a top-up. One ask at a time, never one per call.
    expect(bucket.asks.map((ask) => ask.want)).toEqual([1, 2, 9, 6]);
  });

  it('leases a burst after a quiet spell in two asks: one token, then what the waiting calls want', async () => {
    const bucket = sharedBucket(10_000);
    const limits = { capacity: 100_000, refillPerMinute: 60 };
    const leases = new TokenLeases(bucket.source, 64, 100, undefined, clock);
    const burst = await Promise.all(Array.from({ length: 16 }, () => leases.take('k', limits)));
    expect(burst.every((answer) => answer.allowed)).toBe(true);
    // The first call of a quiet key asks for one token (Redis decides it, the count is exact); the fifteen calls that
    // came meanwhile wait, and the next ask is for them all: two round trips of waiting, not five (1, 2, 4, 8, 16).
    expect(bucket.asks.slice(0, 2).map((ask) => ask.want)).toEqual([1, 15]);
    await Promise.resolve();
    await Promise.resolve();
    expect(leases.held('k')).toBeLessThanOrEqual(leaseSize(limits, 64)); // still one lease at most
  });

  it('tops up a key back from a quiet spell with tokens left before its lease runs dry', async () => {
    const bucket = sharedBucket(10_000);
    const limits = { capacity: 100_000, refillPerMinute: 60 };
    const leases = new TokenLeases(bucket.source, 64, 100, undefined, clock);
    for (let i = 0; i < 200; i += 1) await leases.take('k', limits); // busy: a full lease
    await Promise.resolve();
    await Promise.resolve();
    const left = leases.held('k');
    expect(left).toBeGreaterThan(16);
    now += 2000; // quiet: the calls stop with tokens left in the lease
    const asked = bucket.asks.length;
    // Calls come again, back to back, each decided at once from the lease: from the second one the key is busy
    // again, so the lease is topped up while tokens are left instead of running dry and making calls wait.
    let dry = 0;
    for (let i = 0; i < 3 * left; i += 1) {
      if (!leases.takeHeld('k', limits)) dry += 1;
      await Promise.resolve();
      await Promise.resolve();
    }
    expect(dry).toBe(0);
    expect(bucket.asks.length).toBeGreaterThan(asked);
    expect(leases.held('k')).toBeLessThanOrEqual(leaseSize(limits, 64));
  });

  it('never grants more than the shared bucket has, and remembers a refusal until its token is due', async () => {
    const bucket = sharedBucket(5);
    const leases = new TokenLeases(bucket.source, 20, 100, undefined, clock);
    const answers = await Promise.all(Array.from({ length: 12 }, () => leases.take('k', LIMITS)));
    expect(answers.filter((answer) => answer.allowed)).toHaveLength(5);
    const asked = bucket.asks.length;
    now += 500;
    expect(await leases.take('k', LIMITS)).toMatchObject({ allowed: false, msUntilOne: expect.any(Number) });
    expect(bucket.asks).toHaveLength(asked);
    bucket.state.level = 1; // the token came
    now += 501;
    expect(await leases.take('k', LIMITS)).toMatchObject({ allowed: true });
    expect(bucket.asks).toHaveLength(asked + 1);
  });

  it('decides at once only from tokens already held: never asks, never spends more than the lease, same answer', async () => {
    const bucket = sharedBucket(100);
    const spent: boolean[] = [];
    const leases = new TokenLeases(bucket.source, 20, 100, (allowed) => spent.push(allowed), clock);
    expect(leases.takeHeld('k', LIMITS)).toBeUndefined(); // no lease yet: the caller takes the waiting way
    await leases.take('k', LIMITS);
    await leases.take('k', LIMITS); // busy: a lease of 2, one spent
    expect(leases.held('k')).toBe(1);
    const asks = bucket.asks.length;
    expect(leases.takeHeld('k', LIMITS)).toEqual({
      allowed: true,
      limit: LIMITS.capacity,
      remaining: 0,
      msUntilOne: 0,
      msUntilFull: 1000,
    });
    expect(leases.takeHeld('k', LIMITS)).toBeUndefined(); // spent: nothing taken, nothing counted
    expect(leases.held('k')).toBe(0);
    expect(spent).toEqual([true]); // the one call decided here, counted once
    // Spending the last token asked for a top-up in the background (the call itself did not wait for it).
    expect(bucket.asks.slice(asks)).toEqual([{ cost: 1, want: 4 }]);
    await Promise.resolve();
    await Promise.resolve();
    expect(leases.held('k')).toBe(4);
  });

  it('never holds more than one lease, and a quiet key is never topped up', async () => {
    const bucket = sharedBucket(1000);
    const leases = new TokenLeases(bucket.source, 20, 100, undefined, clock);
    for (let i = 0; i < 200; i += 1) {
      await leases.take('busy', LIMITS);
      expect(leases.held('busy')).toBeLessThanOrEqual(leaseSize(LIMITS, 20));
    }
    const asked = bucket.asks.length;
    await leases.take('calm', LIMITS);
    now += BUSY_WITHIN_MS + 1;
    await leases.take('calm', LIMITS);
    await Promise.resolve();
    expect(bucket.asks.slice(asked)).toEqual([
      { cost: 1, want: 1 },
      { cost: 1, want: 1 },
    ]);
    expect(leases.held('calm')).toBe(0);
  });

  it('tops a busy lease up by the demand of a round trip, so calls faster than Redis answers never find it dry', async () => {
    // Redis answers each ask only after this many more calls of the key have come (a busy key, a slow round trip).
    const ROUND_TRIP = 6;
    const limits = { capacity: 1000, refillPerMinute: 60 };
    const pending: Array<{ due: number; answer(): void }> = [];
    let calls = 0;
    const source: LeaseSource = (_id, bucket, _cost, want) =>
      new Promise((resolve) => {
        const answer = () =>
          resolve({
            allowed: true,
            limit: bucket.capacity,
            remaining: 0,
            msUntilOne: 0,
            msUntilFull: 1,
            granted: want,
          });
        pending.push({ due: calls + ROUND_TRIP, answer });
      });
    const settle = async () => {
      for (let i = 0; i < 5; i += 1) await Promise.resolve();
    };
    const leases = new TokenLeases(source, 16, 100, undefined, clock);
    const dry: number[] = [];
    for (; calls < 400; calls += 1) {
      while (pending.length > 0 && pending[0].due <= calls) {
        pending.shift()?.answer();
        await settle();
      }
      expect(leases.held('k')).toBeLessThanOrEqual(leaseSize(limits, 16)); // never more than one lease
      if (leases.takeHeld('k', limits)) continue;
      dry.push(calls); // the call waits for the next lease (the gateway's slow path)
      void leases.take('k', limits);
      await settle();
    }
    // A quarter of a lease of 16 (4 tokens) lasts 4 calls, less than a round trip: that rule ran dry every lease.
    // Twice the demand of the last round trip (12 tokens, at most half the lease: 8) lasts until the next lease is
    // there: only the key's first calls (a lease of 1, then 2, ...) wait.
    expect(dry.filter((call) => call >= 100)).toEqual([]);
  });
});
