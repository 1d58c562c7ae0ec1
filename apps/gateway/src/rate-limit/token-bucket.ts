/** A bucket's shape: holds `capacity` tokens, gains `refillPerMinute` per minute. */
export interface BucketLimits {
  capacity: number;
  refillPerMinute: number;
}

/** What one take (or look, cost 0) decided. */
export interface BucketDecision {
  allowed: boolean;
  /** The capacity (`RateLimit-Limit`). */
  limit: number;
  /** Whole tokens left after this take. */
  remaining: number;
  /** Until the next whole token: how long a refused caller waits. */
  msUntilOne: number;
  /** Until the bucket is full again. */
  msUntilFull: number;
  /** Tokens taken: the cost, or more when a lease was asked for (absent: the cost). */
  granted?: number;
}

export interface BucketState {
  tokens: number;
  updatedAt: number;
}

/**
 * The token-bucket rule, the same as the Redis script's: refill for the time passed (capped at capacity), then take
 * `cost` if at least `max(cost, 1)` tokens are there. A cost of 0 looks without taking.
 */
export function takeTokens(
  state: BucketState | undefined,
  limits: BucketLimits,
  cost: number,
  now: number,
): { state: BucketState; decision: BucketDecision } {
  const perMs = limits.refillPerMinute / 60_000;
  let tokens = limits.capacity;
  if (state) {
    const elapsed = Math.max(0, now - state.updatedAt);
    tokens = Math.min(limits.capacity, state.tokens + elapsed * perMs);
  }
  const allowed = tokens >= Math.max(cost, 1);
  if (allowed) tokens -= cost;
  return {
    state: { tokens, updatedAt: now },
    decision: {
      allowed,
      limit: limits.capacity,
      remaining: Math.floor(tokens),
      msUntilOne: tokens >= 1 ? 0 : Math.ceil((1 - tokens) / perMs),
      msUntilFull: Math.ceil((limits.capacity - tokens) / perMs),
    },
  };
}

/**
 * Buckets held in this process: the fallback while Redis does not answer. While Redis answers they follow its
 * decisions (`record`), so an outage continues each bucket where it was rather than refilling it. At most
 * `maxBuckets` are kept; the one used longest ago goes first (a dropped bucket comes back full).
 */
export class LocalTokenBuckets {
  private readonly buckets = new Map<string, BucketState>();

  constructor(
    private readonly maxBuckets = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.buckets.size;
  }

  take(bucketId: string, limits: BucketLimits, cost = 1): BucketDecision {
    const { state, decision } = takeTokens(this.buckets.get(bucketId), limits, cost, this.now());
    if (cost > 0) this.store(bucketId, state);
    return decision;
  }

  /** Records a bucket's state as decided elsewhere (Redis), so a fallback continues from it instead of full. */
  record(bucketId: string, limits: BucketLimits, decision: BucketDecision): void {
    const perMs = limits.refillPerMinute / 60_000;
    // Whole milliseconds until full are rounded up, so this is at most the true level: it errs on the strict side.
    const tokens = Math.max(0, limits.capacity - decision.msUntilFull * perMs);
    this.store(bucketId, { tokens, updatedAt: this.now() });
  }

  private store(bucketId: string, state: BucketState): void {
    this.buckets.delete(bucketId);
    while (this.buckets.size >= this.maxBuckets) {
      const oldest = this.buckets.keys().next();
      if (oldest.done) break;
      this.buckets.delete(oldest.value);
    }
    this.buckets.set(bucketId, state);
  }
}
