import { randomUUID } from 'node:crypto';
import type { RedisClient } from '@rp/platform';
import type { MonitorKeys } from './monitor-keys';

/** The lock outlives a few missed renewals; a dead scheduler is replaced within this long. */
export const LOCK_TTL_MS = 10_000;

/** Extends the lock only while we still own it. */
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`;
/** Deletes the lock only while we still own it. */
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

/**
 * One scheduler at a time: a Redis key set with NX and a TTL, renewed by its owner while it runs rounds. A
 * scheduler that dies stops renewing and another takes over once the TTL runs out.
 */
export class SchedulerLock {
  private held = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    private readonly ttlMs: number,
    readonly owner: string = randomUUID(),
  ) {}

  get isHeld(): boolean {
    return this.held;
  }

  /** Renews the lock when we hold it, else tries to take it; whether we hold it now. */
  async hold(): Promise<boolean> {
    if (this.held) {
      this.held = (await this.redis.eval(RENEW, 1, this.key, this.owner, String(this.ttlMs))) === 1;
      if (this.held) return true;
    }
    this.held = (await this.redis.set(this.key, this.owner, 'PX', this.ttlMs, 'NX')) === 'OK';
    return this.held;
  }

  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    await this.redis.eval(RELEASE, 1, this.key, this.owner);
  }
}

/** The scheduler's lock, with an owner of its own (each scheduler, in a process or a test, has one). */
export function schedulerLock(redis: RedisClient, keys: MonitorKeys): SchedulerLock {
  return new SchedulerLock(redis, keys.lock, LOCK_TTL_MS);
}
