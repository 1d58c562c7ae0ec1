import { BucketDecision, BucketLimits } from './token-bucket';

/** Asks the shared bucket for `cost` tokens, or up to `want` (a lease); `granted` says how many it took. */
export type LeaseSource = (
  bucketId: string,
  limits: BucketLimits,
  cost: number,
  want: number,
  /** A top-up asked for ahead of need, for no call: not a decision to count. */
  topUp?: boolean,
) => Promise<BucketDecision>;

/** A lease asked for less than this after the bucket's previous one means the key is busy here: the next one doubles. */
export const BUSY_WITHIN_MS = 100;

/** The largest lease of a bucket: `maxLease`, and never more than a tenth of its capacity (at least 1). */
export function leaseSize(limits: BucketLimits, maxLease: number): number {
  return Math.max(1, Math.min(maxLease, Math.floor(limits.capacity / 10)));
}

/**
 * Tokens left at which a busy key's lease is topped up: a quarter of its size, or twice the key's demand during the
 * last round trip to the shared bucket when that is more (the next lease then comes before this one is spent), but
 * never above half the lease, so that each top-up asks for half a lease or more (one script run per many calls, not
 * per round trip).
 */
function lowWater(lease: Lease): number {
  return Math.min(lease.next / 2, Math.max(lease.next / 4, 2 * lease.demand));
}

/**
 * A key is busy here while its calls come within `BUSY_WITHIN_MS` of each other: a lease was asked for, or a call took
 * a token, that recently. (A key back from a quiet spell with tokens left in its lease is busy again from its second
 * call, so it is topped up before the lease runs dry.)
 */
function isBusy(lease: Lease, now: number): boolean {
  return now - lease.askedAt < BUSY_WITHIN_MS || now - lease.calledAt < BUSY_WITHIN_MS;
}

interface Lease {
  /** Tokens taken from the shared bucket and not spent yet: this replica's to spend, nobody else's. */
  left: number;
  /** What the next lease asks for: 1 for a quiet key, doubling while the key stays busy, up to the bucket's size. */
  next: number;
  /** When the last lease was asked for. */
  askedAt: number;
  /** When a call of the key last took a token here (from the lease, or by asking). */
  calledAt: number;
  /** The shared bucket's time until full at the last answer (`RateLimit-Reset` of calls spent from the lease). */
  msUntilFull: number;
  /** The lease being asked for: other calls of the bucket wait for it instead of asking too. */
  asking?: Promise<unknown>;
  /** Tokens the key's calls wanted while the current ask was out (spent from the lease, or waiting for it). */
  wantedWhileAsking: number;
  /** The same for the last ask answered: the key's demand over one round trip to the shared bucket. */
  demand: number;
  /** A refusal stays true until a token is due: the shared bucket only gains by refill. */
  refused?: { decision: BucketDecision; until: number };
}

/**
 * Tokens leased from the shared bucket in small batches, per replica (as Envoy's and Kong's distributed limits do):
 * a call spends from this replica's lease without a round trip to Redis; when the lease is spent, one call asks for
 * the next and the calls that arrive meanwhile wait for it. A quiet key leases one token at a time, so its every call
 * is decided by Redis and its `RateLimit-Remaining` is exact; a busy key's lease doubles up to `leaseSize`, or grows at
 * once to what the key's calls wanted over the last round trip when that is more (a burst after a quiet spell waits
 * for two asks, not for a doubling per ask: ADR 039).
 *
 * Bounds: tokens only leave the shared bucket, which never goes below zero, so a key is never admitted more than its
 * burst plus the refill; after a quiet spell in which the bucket refilled, each replica may still hold one unspent
 * lease, hence at most burst + one lease per replica at once. `RateLimit-Remaining` is never above the truth: an
 * answer from Redis counts the shared level plus this replica's lease (other replicas' leases are left out), an
 * answer from the lease counts the lease only (what is certain without asking). The price: a key may be refused up
 * to a lease per other replica early, while those tokens sit unspent there.
 */
export class TokenLeases {
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly source: LeaseSource,
    private readonly maxLease: number,
    private readonly maxBuckets = 10_000,
    /** Told of every call decided here without asking (spent from the lease, or a refusal still true). */
    private readonly decidedHere: (allowed: boolean) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes `cost` (at least 1) tokens from the lease, asking the shared bucket for a new one when it runs short. */
  async take(bucketId: string, limits: BucketLimits, cost = 1): Promise<BucketDecision> {
    const lease = this.lease(bucketId);
    for (;;) {
      if (lease.left >= cost) return this.spend(lease, bucketId, limits, cost);
      if (lease.asking) {
        lease.wantedWhileAsking += cost;
        await lease.asking;
        continue;
      }
      const now = this.now();
      if (lease.refused && now < lease.refused.until) {
        this.decidedHere(false);
        return { ...lease.refused.decision, msUntilOne: lease.refused.until - now };
      }
      return this.ask(lease, bucketId, limits, cost, now);
    }
  }

  /**
   * The same take, decided now or not at all: `cost` tokens spent from the lease when it holds them, else
   * `undefined` with nothing taken (the caller then takes the asynchronous way, which asks or waits). It leaves the
   * bucket's place in the least-recently-used order as it is: a lease dropped for room is only tokens lost.
   */
  takeHeld(bucketId: string, limits: BucketLimits, cost = 1): BucketDecision | undefined {
    const lease = this.leases.get(bucketId);
    if (lease === undefined || lease.left < cost) return undefined;
    return this.spend(lease, bucketId, limits, cost);
  }

  /** Unspent tokens of this replica's lease of `bucketId` (0 without one). */
  held(bucketId: string): number {
    return this.leases.get(bucketId)?.left ?? 0;
  }

  private spend(lease: Lease, bucketId: string, limits: BucketLimits, cost: number): BucketDecision {
    lease.left -= cost;
    if (lease.asking) lease.wantedWhileAsking += cost;
    this.decidedHere(true);
    const remaining = Math.floor(lease.left);
    const now = this.now();
    const busy = isBusy(lease, now);
    lease.calledAt = now;
    if (busy) this.topUpIfLow(lease, bucketId, limits, now);
    return { allowed: true, limit: limits.capacity, remaining, msUntilOne: 0, msUntilFull: lease.msUntilFull };
  }

  /**
   * A busy key's lease running low is topped up in the background, so its calls find tokens at hand instead of
   * waiting for the next lease: the top-up asks for what brings the lease back to its size, never more, so a replica
   * never holds more than one lease unspent (the bound above is unchanged). Low means a quarter of the lease or twice
   * what the key wanted during the last round trip to the shared bucket, whichever is more (`lowWater`): a key whose
   * calls come faster than Redis answers is topped up early enough that the next lease arrives before this one is
   * spent. A quiet key (a lease of one), a key no longer busy (no call and no ask within `BUSY_WITHIN_MS`: the caller
   * checks) and a lease already being asked for are left alone: their next call asks and waits, as before. The size it brings the lease
   * back to is twice the last one, or the key's demand over the last round trip when that is more (ADR 039).
   */
  private topUpIfLow(lease: Lease, bucketId: string, limits: BucketLimits, now: number): void {
    if (lease.asking || lease.next < 2 || lease.left > lowWater(lease)) return;
    const target = Math.min(leaseSize(limits, this.maxLease), Math.max(lease.next * 2, lease.demand));
    const want = Math.floor(target - lease.left);
    if (want < 1) return;
    lease.next = target;
    lease.askedAt = now;
    const asking: Promise<unknown> = this.source(bucketId, limits, 1, want, true)
      .then(
        (decision) => {
          this.answered(lease);
          lease.msUntilFull = decision.msUntilFull;
          if (decision.allowed) {
            lease.left += decision.granted ?? 1;
            lease.refused = undefined;
          } else {
            lease.refused = { decision, until: this.now() + decision.msUntilOne };
          }
        },
        () => this.answered(lease),
      )
      .finally(() => {
        if (lease.asking === asking) lease.asking = undefined;
      });
    lease.asking = asking;
  }

  private async ask(
    lease: Lease,
    bucketId: string,
    limits: BucketLimits,
    cost: number,
    now: number,
  ): Promise<BucketDecision> {
    const size = leaseSize(limits, this.maxLease);
    // A busy key asks for twice its last lease, or for what its calls wanted over the last round trip when that is
    // more (after a quiet spell, the calls of a burst wait for this ask: one lease for all, not a doubling per ask).
    const busy = isBusy(lease, now);
    lease.calledAt = now;
    const want = Math.max(cost, busy ? Math.min(size, Math.max(lease.next * 2, lease.demand)) : 1);
    lease.next = want;
    lease.askedAt = now;
    const asked = this.source(bucketId, limits, cost, want);
    lease.asking = asked.catch(() => undefined);
    try {
      const decision = await asked;
      lease.msUntilFull = decision.msUntilFull;
      if (!decision.allowed) {
        lease.refused = { decision, until: this.now() + decision.msUntilOne };
        return decision;
      }
      lease.refused = undefined;
      lease.left += (decision.granted ?? cost) - cost;
      return { ...decision, remaining: decision.remaining + Math.floor(lease.left) };
    } finally {
      this.answered(lease);
      lease.asking = undefined;
    }
  }

  /** An ask of `lease` came back: what its calls wanted meanwhile is the key's demand per round trip. */
  private answered(lease: Lease): void {
    lease.demand = lease.wantedWhileAsking;
    lease.wantedWhileAsking = 0;
  }

  private lease(bucketId: string): Lease {
    let lease = this.leases.get(bucketId);
    if (lease) {
      // Least recently used last out: a bucket dropped for room loses its unspent lease (never admits more).
      this.leases.delete(bucketId);
    } else {
      lease = {
        left: 0,
        next: 1,
        askedAt: -Infinity,
        calledAt: -Infinity,
        msUntilFull: 0,
        wantedWhileAsking: 0,
        demand: 0,
      };
      while (this.leases.size >= this.maxBuckets) {
        const oldest = this.leases.keys().next();
        if (oldest.done) break;
        this.leases.delete(oldest.value);
      }
    }
    this.leases.set(bucketId, lease);
    return lease;
  }
}
