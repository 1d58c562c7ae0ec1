import { type Collection, DuplicateKeyError } from '@rp/persistence-store';
import { type RedisClient, RedisLeases as PlatformRedisLeases } from '@rp/platform-core';
import type { Lease } from '../store/agent-store';

/**
 * Named leases with a holder and an expiry: the per-wallet lock (held by one agent instance, renewed while it
 * lives) and the per-(wallet, pool) close cooldown (held by one decision for `CLOSE_COOLDOWN_TTL`). `acquire`
 * takes a free or expired lease, or renews one the holder already has; it is atomic per lease in both stores.
 */
export interface Leases {
  readonly kind: 'redis' | 'database';
  acquire(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up if `holder` still has it. */
  release(name: string, holder: string): Promise<void>;
  /** The current holder, if any. */
  holder(name: string): Promise<string | undefined>;
}

/** The platform's Redis leases (`@rp/platform-core`), under the agent's prefix. */
export class RedisLeases extends PlatformRedisLeases implements Leases {
  constructor(redis: RedisClient, prefix = 'rp:agent:') {
    super(redis, prefix);
  }
}

/** Leases as documents: a conditional update on an expired lease or one's own is atomic in every driver. */
export class DatabaseLeases implements Leases {
  readonly kind = 'database' as const;

  constructor(
    private readonly leases: Collection<Lease>,
    private readonly now: () => number = Date.now,
  ) {}

  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const until = now + ttlMs;
    try {
      await this.leases.insert({ id: name, holder, until });
      return true;
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
    }
    const taken = await this.leases.updateOne({ id: name, until: { $lte: now } }, { set: { holder, until } });
    if (taken.matched) return true;
    const renewed = await this.leases.updateOne({ id: name, holder }, { set: { until } });
    return renewed.matched;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.leases.updateOne({ id: name, holder }, { set: { until: 0 } });
  }

  async holder(name: string): Promise<string | undefined> {
    const lease = await this.leases.findOne({ id: name });
    return lease && lease.until > this.now() ? lease.holder : undefined;
  }
}
