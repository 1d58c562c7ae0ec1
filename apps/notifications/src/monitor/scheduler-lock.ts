import { randomUUID } from 'node:crypto';
import { type RedisClient, RedisLeases } from '@rp/platform';
import type { MonitorKeys } from './monitor-keys';

/** The lock outlives a few missed renewals; a dead scheduler is replaced within this long. */
export const LOCK_TTL_MS = 10_000;

/**
 * One scheduler at a time: a lease (the platform's `RedisLeases`) renewed by its owner while it runs rounds. A
 * scheduler that dies stops renewing and another takes over once the lease runs out.
 */
export class SchedulerLock {
  private held = false;

  constructor(
    private readonly leases: RedisLeases,
    private readonly key: string,
    private readonly ttlMs: number,
    readonly owner: string = randomUUID(),
  ) {}

  get isHeld(): boolean {
    return this.held;
  }

  /** Renews the lock when we hold it, else tries to take it; whether we hold it now. */
  async hold(): Promise<boolean> {
    this.held = await this.leases.acquire(this.key, this.owner, this.ttlMs);
    return this.held;
  }

  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    await this.leases.release(this.key, this.owner);
  }
}

/** The scheduler's lock, with an owner of its own (each scheduler, in a process or a test, has one). */
export function schedulerLock(redis: RedisClient, keys: MonitorKeys): SchedulerLock {
  return new SchedulerLock(new RedisLeases(redis), keys.lock, LOCK_TTL_MS);
}
