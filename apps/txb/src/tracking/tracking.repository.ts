import { Injectable } from '@nestjs/common';
import { RedisClient, RedisLeases } from '@rp/platform';
import { KEYS } from '../proposals/proposal.repository';

/**
 * The tracker's work list in Redis: proposals whose transaction may be on its way to the ledger, each with the time
 * it is next due, and a lease per proposal so that one replica at a time checks it. A replica that dies holding a
 * lease loses it when the lease runs out; any replica (or the restarted one) then picks the proposal up.
 */
@Injectable()
export class TrackingRepository {
  private readonly leases: RedisLeases;

  constructor(private readonly redis: RedisClient) {
    // Named `KEYS.lease(id)`: the platform's leases under txb's prefix.
    this.leases = new RedisLeases(redis, KEYS.lease(''));
  }

  /** Proposals due for a check at `now`, soonest first. */
  due(now: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(KEYS.tracking, '-inf', now, 'LIMIT', 0, limit);
  }

  /** Adds the proposal to the work list at `at` (only if it is not there: a sweeper must not delay a check). */
  async ensure(id: string, at: number): Promise<void> {
    await this.redis.zadd(KEYS.tracking, 'NX', at, id);
  }

  /** Moves an entry that is still on the work list to `at`. */
  async reschedule(id: string, at: number): Promise<void> {
    await this.redis.zadd(KEYS.tracking, 'XX', at, id);
  }

  async remove(id: string): Promise<void> {
    await this.redis.zrem(KEYS.tracking, id);
  }

  /** True when this replica now holds the proposal's lease for `ms` (a replica asks once per check: ticks never overlap). */
  async lease(id: string, holder: string, ms: number): Promise<boolean> {
    return this.leases.acquire(id, holder, ms);
  }

  async release(id: string, holder: string): Promise<void> {
    await this.leases.release(id, holder);
  }
}
