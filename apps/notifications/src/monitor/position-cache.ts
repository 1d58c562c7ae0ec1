import type { Positions } from '@rp/ledger';
import type { RedisClient } from '@rp/platform';
import type { MonitorKeys } from './monitor-keys';

/** Positions as read from the ledger, and the round by which they must be read again. */
export interface CachedPositions {
  readonly positions: Positions;
  readonly dueRound: number;
}

/** Idle pools' caches disappear after a day. */
const CACHE_TTL_SECONDS = 86_400;

/**
 * Wallets' positions between rounds, in Redis so that any replica's batch job finds what another one read: one
 * hash per pool, wallet -> `dueRound|collateral|liabilities|supply` (reserve index:amount pairs).
 */
export class PositionCache {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: MonitorKeys,
  ) {}

  async get(pool: string, wallets: readonly string[]): Promise<(CachedPositions | undefined)[]> {
    if (wallets.length === 0) return [];
    const values = await this.redis.hmget(this.keys.positions(pool), ...wallets);
    return values.map((value) => (value === null ? undefined : decodeCached(value)));
  }

  async put(pool: string, entries: readonly (readonly [string, CachedPositions])[]): Promise<void> {
    if (entries.length === 0) return;
    const key = this.keys.positions(pool);
    const fields: string[] = [];
    for (const [wallet, cached] of entries) fields.push(wallet, encodeCached(cached));
    await this.redis
      .multi()
      .hset(key, ...fields)
      .expire(key, CACHE_TTL_SECONDS)
      .exec();
  }

  /** Wallets named by pool events: read from the ledger in the next round. */
  async forget(pool: string, wallets: readonly string[]): Promise<void> {
    if (wallets.length > 0) await this.redis.hdel(this.keys.positions(pool), ...wallets);
  }

  /** Nobody knows what changed (events unreadable): everyone is read again. */
  async clear(pools: readonly string[]): Promise<void> {
    if (pools.length > 0) await this.redis.del(...pools.map((pool) => this.keys.positions(pool)));
  }
}

export function encodeCached({ positions, dueRound }: CachedPositions): string {
  const book = (map: ReadonlyMap<number, bigint>) => [...map].map(([index, amount]) => `${index}:${amount}`).join(',');
  return `${dueRound}|${book(positions.collateral)}|${book(positions.liabilities)}|${book(positions.supply)}`;
}

export function decodeCached(value: string): CachedPositions | undefined {
  const [due, collateral, liabilities, supply] = value.split('|');
  if (supply === undefined || !/^\d+$/.test(due)) return undefined;
  const book = (text: string): Map<number, bigint> =>
    new Map(
      text === ''
        ? []
        : text.split(',').map((pair) => {
            const [index, amount] = pair.split(':');
            return [Number(index), BigInt(amount)] as const;
          }),
    );
  try {
    return {
      dueRound: Number(due),
      positions: { collateral: book(collateral), liabilities: book(liabilities), supply: book(supply) },
    };
  } catch {
    return undefined;
  }
}
