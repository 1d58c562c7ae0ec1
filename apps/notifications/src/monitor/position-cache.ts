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
/** Decoded entries a process keeps at most (a bound for wallets no longer watched); past it it starts over. */
const MAX_DECODED = 200_000;

/**
 * Wallets' positions between rounds, in Redis so that any replica's batch job finds what another one read: one
 * hash per pool, wallet -> `dueRound|collateral|liabilities|supply` (reserve index:amount pairs). Each process
 * remembers the last entry it decoded or wrote per position: an entry that is still the same text is not decoded
 * again (every warm round reads every watched position).
 */
export class PositionCache {
  /** Pool -> wallet -> the entry's text and what it decodes to. */
  private readonly decoded = new Map<string, Map<string, { text: string; cached: CachedPositions | undefined }>>();
  private decodedCount = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: MonitorKeys,
  ) {}

  async get(pool: string, wallets: readonly string[]): Promise<(CachedPositions | undefined)[]> {
    if (wallets.length === 0) return [];
    const values = await this.redis.hmget(this.keys.positions(pool), ...wallets);
    return values.map((value, i) => {
      if (value === null) return undefined;
      const known = this.decoded.get(pool)?.get(wallets[i]);
      if (known?.text === value) return known.cached;
      const cached = decodeCached(value);
      this.remember(pool, wallets[i], value, cached);
      return cached;
    });
  }

  async put(pool: string, entries: readonly (readonly [string, CachedPositions])[]): Promise<void> {
    if (entries.length === 0) return;
    const key = this.keys.positions(pool);
    const fields: string[] = [];
    for (const [wallet, cached] of entries) {
      const text = encodeCached(cached);
      fields.push(wallet, text);
      this.remember(pool, wallet, text, cached);
    }
    await this.redis
      .multi()
      .hset(key, ...fields)
      .expire(key, CACHE_TTL_SECONDS)
      .exec();
  }

  private remember(pool: string, wallet: string, text: string, cached: CachedPositions | undefined): void {
    let byWallet = this.decoded.get(pool);
    if (this.decodedCount >= MAX_DECODED && !byWallet?.has(wallet)) {
      this.decoded.clear();
      this.decodedCount = 0;
      byWallet = undefined;
    }
    if (!byWallet) {
      byWallet = new Map();
      this.decoded.set(pool, byWallet);
    }
    if (!byWallet.has(wallet)) this.decodedCount += 1;
    byWallet.set(wallet, { text, cached });
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
