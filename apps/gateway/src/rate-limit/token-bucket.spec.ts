import { LocalTokenBuckets, takeTokens } from './token-bucket';

const STANDARD = { capacity: 120, refillPerMinute: 60 };

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('the token bucket rule', () => {
  it('starts full: the first take leaves capacity - 1, a full bucket again in one refill period', () => {
    const { decision } = takeTokens(undefined, STANDARD, 1, 0);
    expect(decision).toEqual({ allowed: true, limit: 120, remaining: 119, msUntilOne: 0, msUntilFull: 1000 });
  });

  it('refills at refillPerMinute, never above capacity', () => {
    expect(takeTokens({ tokens: 0, updatedAt: 0 }, STANDARD, 0, 2500).decision.remaining).toBe(2);
    expect(takeTokens({ tokens: 119, updatedAt: 0 }, STANDARD, 0, 60_000).decision.remaining).toBe(120);
  });

  it('refuses when less than one token is left, and says when the next one comes', () => {
    const { decision, state } = takeTokens({ tokens: 0.25, updatedAt: 0 }, STANDARD, 1, 0);
    expect(decision).toMatchObject({ allowed: false, remaining: 0, msUntilOne: 750, msUntilFull: 119_750 });
    expect(state.tokens).toBe(0.25);
  });

  it('looks without taking when the cost is 0', () => {
    expect(takeTokens({ tokens: 3, updatedAt: 0 }, STANDARD, 0, 0)).toMatchObject({
      state: { tokens: 3 },
      decision: { allowed: true, remaining: 3 },
    });
    expect(takeTokens({ tokens: 0.5, updatedAt: 0 }, STANDARD, 0, 0).decision.allowed).toBe(false);
  });

  it('does not refill when the clock goes backwards', () => {
    expect(takeTokens({ tokens: 5, updatedAt: 10_000 }, STANDARD, 1, 5_000).decision.remaining).toBe(4);
  });
});

describe('the in-process buckets', () => {
  it('pass the burst, refuse the next, and pass one more a token later', () => {
    const time = clock();
    const buckets = new LocalTokenBuckets(100, time.now);
    for (let i = 0; i < 120; i += 1) expect(buckets.take('key:a', STANDARD).allowed).toBe(true);
    const refused = buckets.take('key:a', STANDARD);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, msUntilOne: 1000, msUntilFull: 120_000 });
    time.advance(999);
    expect(buckets.take('key:a', STANDARD).allowed).toBe(false);
    time.advance(1);
    expect(buckets.take('key:a', STANDARD).allowed).toBe(true);
  });

  it('keep buckets apart', () => {
    const buckets = new LocalTokenBuckets(100, clock().now);
    const tiny = { capacity: 1, refillPerMinute: 1 };
    expect(buckets.take('ip:1.1.1.1', tiny).allowed).toBe(true);
    expect(buckets.take('ip:1.1.1.1', tiny).allowed).toBe(false);
    expect(buckets.take('ip:2.2.2.2', tiny).allowed).toBe(true);
  });

  it('hold at most maxBuckets, dropping the one used longest ago; a look stores nothing', () => {
    const buckets = new LocalTokenBuckets(2, clock().now);
    const tiny = { capacity: 1, refillPerMinute: 1 };
    buckets.take('a', tiny);
    buckets.take('b', tiny);
    buckets.take('a', tiny);
    buckets.take('c', tiny);
    expect(buckets.size).toBe(2);
    expect(buckets.take('a', tiny, 0).allowed).toBe(false);
    expect(buckets.take('b', tiny, 0).allowed).toBe(true);
    buckets.take('d', tiny, 0);
    expect(buckets.size).toBe(2);
  });

  it('continue a bucket from the level Redis last reported, not from full', () => {
    const time = clock();
    const buckets = new LocalTokenBuckets(100, time.now);
    buckets.record('key:b', STANDARD, { allowed: true, limit: 120, remaining: 2, msUntilOne: 0, msUntilFull: 117_500 });
    expect(buckets.take('key:b', STANDARD)).toMatchObject({ allowed: true, remaining: 1 });
    expect(buckets.take('key:b', STANDARD)).toMatchObject({ allowed: true, remaining: 0 });
    expect(buckets.take('key:b', STANDARD).allowed).toBe(false);
  });
});
