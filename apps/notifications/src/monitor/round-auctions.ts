import { Injectable } from '@nestjs/common';
import { loadUserAuctions } from '@rp/ledger';
import { RedisClient } from '@rp/platform';
import { RmsLedger } from '../risk/rms-ledger';
import { MonitorKeys } from './monitor-keys';

/** A pool's user liquidation auctions as a round sees them. */
export interface PoolAuctions {
  /** Users with an auction against them in the pool now (`liquidation_auction`). */
  readonly auctions: readonly string[];
  /** Those whose auction started since the last round (`new_auction`): their alert bypasses the cooldown. */
  readonly newAuctions: readonly string[];
}

/**
 * The live user liquidation auctions of the watched pools, round by round, without a ledger read while there is
 * none: the users the pools' `new_auction` events named since the last round, plus the ones live at the last round
 * (kept in Redis), are checked against their `Auction(AuctionKey{user, 0})` entries in one `getLedgerEntries`; the
 * live ones are kept for the next round. A filled or deleted auction drops out at the first round after it.
 */
@Injectable()
export class RoundAuctions {
  constructor(
    private readonly ledger: RmsLedger,
    private readonly redis: RedisClient,
    private readonly keys: MonitorKeys,
  ) {}

  /** `started`: pool -> users of the `new_auction` events read this round (undefined when none could be read). */
  async of(
    pools: readonly string[],
    started: ReadonlyMap<string, ReadonlySet<string>> | undefined,
  ): Promise<Map<string, PoolAuctions>> {
    const known = await Promise.all(pools.map((pool) => this.redis.smembers(this.keys.auctions(pool))));
    const pairs = pools.flatMap((pool, i) =>
      [...new Set([...known[i], ...(started?.get(pool) ?? [])])].map((user) => ({ pool, user })),
    );
    const result = new Map<string, PoolAuctions>();
    if (pairs.length === 0) return result;
    const live = await loadUserAuctions(this.ledger.rpc(), pairs);
    const store = this.redis.multi();
    for (const pool of pools) {
      const users = [...(live.get(pool)?.keys() ?? [])];
      store.del(this.keys.auctions(pool));
      if (users.length > 0) store.sadd(this.keys.auctions(pool), ...users);
      const fresh = started?.get(pool);
      result.set(pool, { auctions: users, newAuctions: users.filter((user) => fresh?.has(user) === true) });
    }
    await store.exec();
    return result;
  }
}
