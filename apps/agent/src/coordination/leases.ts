import { type Collection, DuplicateKeyError } from '@rp/persistence-store';
import type { RedisClient } from '@rp/platform-core';
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

const ACQUIRE = `
local current = redis.call('GET', KEYS[1])
if current == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
elseif current == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export class RedisLeases implements Leases {
  readonly kind = 'redis' as const;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix = 'rp:agent:',
  ) {}

  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.eval(ACQUIRE, 1, this.prefix + name, holder, String(Math.ceil(ttlMs)))) === 1;
  }

  async release(name: string, holder: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.prefix + name, holder);
  }

  async holder(name: string): Promise<string | undefined> {
    return (await this.redis.get(this.prefix + name)) ?? undefined;
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
