import type { Reserve, SummaryPrices } from '@rp/ledger';

/** What a batch job values positions against: a pool's reserves (accrued) and its oracle's prices, for one round. */
export interface RoundPool {
  readonly pool: string;
  readonly reserves: readonly Reserve[];
  readonly prices: SummaryPrices;
  /** The pool's Blend status (`PoolConfig.status`): on ice and frozen raise their triggers. */
  readonly status: number;
  /** The ledger's close time (unix seconds) when the pool was read: prices older than a wallet's bound are stale. */
  readonly closeTime?: bigint;
  /** Each reserve's borrow rate at the monitor's last round (asset -> APR, 7 decimals): `borrow_rate_jump`. */
  readonly previousBorrowRates?: ReadonlyMap<string, bigint>;
  /** Users with a liquidation auction against them in the pool, and those whose auction started this round. */
  readonly auctions?: readonly string[];
  readonly newAuctions?: readonly string[];
}

interface BigintJson {
  $big: string;
}
interface MapJson {
  $map: unknown[];
}

/** JSON with bigints and maps kept (reserve data and prices are bigints, prices a map by asset). */
export function encodeRoundPools(pools: readonly RoundPool[]): string {
  return JSON.stringify(pools, (_key, value: unknown) => {
    if (typeof value === 'bigint') return { $big: value.toString() } satisfies BigintJson;
    if (value instanceof Map) return { $map: [...value] } satisfies MapJson;
    return value;
  });
}

export function decodeRoundPools(text: string): RoundPool[] {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value !== null && typeof value === 'object') {
      if ('$big' in value) return BigInt((value as BigintJson).$big);
      if ('$map' in value) return new Map((value as MapJson).$map as [unknown, unknown][]);
    }
    return value;
  }) as RoundPool[];
}
