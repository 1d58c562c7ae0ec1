import { Inject, Injectable, Logger } from '@nestjs/common';
import { RedisClient } from '@rp/platform';
import { Counter, Gauge, Registry } from 'prom-client';
import { RedisTokenBuckets } from './redis-token-buckets';
import { BucketDecision, BucketLimits, LocalTokenBuckets } from './token-bucket';
import { TokenLeases } from './token-leases';

export const RATE_LIMIT_REDIS = Symbol('gateway:rate-limit-redis');
export const RATE_LIMIT_OPTIONS = Symbol('gateway:rate-limit-options');

export interface RateLimiterOptions {
  /** Prefix of the bucket hashes in Redis; tests give each run its own. */
  keyPrefix?: string;
  /** Buckets the in-process fallback holds at most. */
  maxLocalBuckets?: number;
  /** After a failed call on a connection that still looks up, leave Redis alone this long (no per-request wait). */
  retryRedisAfterMs?: number;
  /** Most tokens a replica leases from a shared bucket at once (`RATE_LIMIT_LEASE`); 1 asks Redis for every call. */
  maxLease?: number;
}

/** `RATE_LIMIT_LEASE`'s default. */
export const DEFAULT_MAX_LEASE = 64;

/**
 * Token buckets shared by every replica in Redis, with an in-process fallback of the same shape: when Redis refuses,
 * is disconnected or is slower than the client's command timeout, this replica decides alone, starting from the
 * last level Redis gave it for each bucket. It never lets a request through unlimited. An outage is logged once when
 * it starts and once when Redis answers again, and shows in the `rate_limit_degraded` gauge. Takes are spent from
 * small leases of the shared buckets (`TokenLeases`): a busy key costs one Redis round trip per lease, not per call.
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger(RateLimiter.name);
  private readonly shared: RedisTokenBuckets;
  private readonly local: LocalTokenBuckets;
  private readonly leases: TokenLeases;
  private readonly retryRedisAfterMs: number;
  private skipRedisUntil = 0;
  private degradedSince: number | undefined;
  private readonly degradedGauge: Gauge;
  private readonly decisions: Counter<'store' | 'outcome'>;
  /**
   * Calls decided from the lease, counted in plain numbers and added to `decisions` when it is read (a scrape): a
   * labelled counter's `inc` hashes its labels, which every call spent from a lease would pay.
   */
  private readonly decidedHere = { allowed: 0, refused: 0 };

  constructor(
    @Inject(RATE_LIMIT_REDIS) private readonly redis: RedisClient,
    registry: Registry,
    @Inject(RATE_LIMIT_OPTIONS) options: RateLimiterOptions = {},
  ) {
    this.shared = new RedisTokenBuckets(redis, options.keyPrefix);
    this.local = new LocalTokenBuckets(options.maxLocalBuckets);
    this.retryRedisAfterMs = options.retryRedisAfterMs ?? 1000;
    this.leases = new TokenLeases(
      (bucketId, limits, cost, want, topUp) => this.decide(bucketId, limits, cost, want, topUp),
      options.maxLease ?? DEFAULT_MAX_LEASE,
      options.maxLocalBuckets,
      (allowed) => {
        if (allowed) this.decidedHere.allowed += 1;
        else this.decidedHere.refused += 1;
      },
    );
    this.degradedGauge = new Gauge({
      name: 'rate_limit_degraded',
      help: '1 while rate limits are decided in process because Redis does not answer',
      registers: [registry],
    });
    const decidedHere = this.decidedHere;
    this.decisions = new Counter({
      name: 'rate_limit_decisions_total',
      help: "Rate-limit decisions by store (redis, lease: spent from this replica's lease, local fallback) and outcome",
      labelNames: ['store', 'outcome'],
      registers: [registry],
      collect() {
        for (const outcome of ['allowed', 'refused'] as const) {
          if (decidedHere[outcome] > 0) this.inc({ store: 'lease', outcome }, decidedHere[outcome]);
          decidedHere[outcome] = 0;
        }
      },
    });
  }

  /** True while the in-process fallback decides. */
  get degraded(): boolean {
    return this.degradedSince !== undefined;
  }

  /** Takes `cost` tokens (0 only looks at the shared bucket) from `bucketId`. Never throws for a Redis failure. */
  async take(bucketId: string, limits: BucketLimits, cost = 1): Promise<BucketDecision> {
    if (cost === 0) return this.decide(bucketId, limits, 0, 0);
    return this.leases.take(bucketId, limits, cost);
  }

  /** `cost` tokens from this replica's lease of `bucketId` if it holds them, decided now; else `undefined`. */
  takeHeld(bucketId: string, limits: BucketLimits, cost = 1): BucketDecision | undefined {
    return this.leases.takeHeld(bucketId, limits, cost);
  }

  /** Unspent tokens of this replica's lease of `bucketId`. */
  held(bucketId: string): number {
    return this.leases.held(bucketId);
  }

  /** Asks the shared bucket (or, while Redis does not answer, the in-process one) for `cost` tokens, up to `want`. */
  private async decide(
    bucketId: string,
    limits: BucketLimits,
    cost: number,
    want: number,
    topUp = false,
  ): Promise<BucketDecision> {
    if (this.redis.status !== 'ready') {
      this.failed(`connection is ${this.redis.status}`);
    } else if (Date.now() >= this.skipRedisUntil) {
      try {
        const decision = await this.shared.take(bucketId, limits, cost, want);
        if (cost > 0) this.local.record(bucketId, limits, decision);
        this.recovered();
        return this.counted('redis', decision, topUp ? 0 : cost);
      } catch (error) {
        this.skipRedisUntil = Date.now() + this.retryRedisAfterMs;
        this.failed(error instanceof Error ? error.message : String(error));
      }
    }
    return this.counted('local', { ...this.local.take(bucketId, limits, cost), granted: cost }, topUp ? 0 : cost);
  }

  private failed(reason: string): void {
    if (this.degradedSince !== undefined) return;
    this.degradedSince = Date.now();
    this.degradedGauge.set(1);
    this.logger.warn(`Redis does not answer (${reason}); rate limits are decided in process until it does`);
  }

  private recovered(): void {
    if (this.degradedSince === undefined) return;
    const seconds = Math.round((Date.now() - this.degradedSince) / 1000);
    this.degradedSince = undefined;
    this.degradedGauge.set(0);
    this.logger.log(`Redis answers again after ${seconds} s; rate limits are shared again`);
  }

  private counted(store: 'redis' | 'local', decision: BucketDecision, cost: number): BucketDecision {
    if (cost > 0) this.decisions.inc({ store, outcome: decision.allowed ? 'allowed' : 'refused' });
    return decision;
  }
}
