import { Injectable } from '@nestjs/common';
import { RedisClient, luaScript, runScript } from '@rp/platform';
import { RELEASE_LEASE_SCRIPT } from '../proposals/proposal-scripts';
import { KEYS } from '../proposals/proposal.repository';

const RELEASE = luaScript(RELEASE_LEASE_SCRIPT);

/**
 * The tracker's work list in Redis: proposals whose transaction may be on its way to the ledger, each with the time
 * it is next due, and a lease per proposal so that one replica at a time checks it. A replica that dies holding a
 * lease loses it when the lease runs out; any replica (or the restarted one) then picks the proposal up.
 */
@Injectable()
export class TrackingRepository {
  constructor(private readonly redis: RedisClient) {}

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

  /** True when this replica now holds the proposal's lease for `ms`. */
  async lease(id: string, holder: string, ms: number): Promise<boolean> {
    return (await this.redis.set(KEYS.lease(id), holder, 'PX', ms, 'NX')) === 'OK';
  }

  async release(id: string, holder: string): Promise<void> {
    await runScript(this.redis, RELEASE, [KEYS.lease(id)], [holder]);
  }
}
