import { type AlertTrigger, DEFAULT_RISK_BOUNDS, type RiskLevel, type RiskLevelBounds } from '@rp/contracts';
import type { Positions, Reserve } from './layouts';
import type { SummaryPrices } from './position-summary';

/** A trigger a position raises whatever its health factor, with the lowest level it raises the position to. */
export interface RaisedTrigger {
  readonly trigger: AlertTrigger;
  readonly minimumLevel: RiskLevel;
}

/** What the pool itself says about a position in it: its Blend v2 status (`PoolConfig.status`). */
export interface PoolConditions {
  readonly status: number;
  /** Assets (contract ids) worth $1: a price off it by more than the wallet's `depegBps` is `stablecoin_depeg`. */
  readonly stablecoins?: ReadonlySet<string>;
  /** The ledger's close time (unix seconds): a held asset's price older than `oracleMaxAgeSeconds` is `stale_oracle`. */
  readonly ledgerCloseTime?: bigint;
  /** Borrow rates at the last round (asset -> APR, 7 decimals): a borrowed one up by half is `borrow_rate_jump`. */
  readonly previousBorrowRates?: ReadonlyMap<string, bigint>;
  /** A user liquidation auction against this position's user stands in the pool: `liquidation_auction`. */
  readonly liquidationAuction?: boolean;
}

/**
 * The triggers of the pool's status (Blend v2 pool/src/pool/status.rs): 0-1 active (none), 2-3 on ice (borrowing
 * stopped: `pool_on_ice`, medium), 4-5 frozen and 6 setup (supplying and borrowing stopped: `pool_frozen`, high).
 */
export function poolStatusTriggers(status: number): RaisedTrigger[] {
  if (status === 2 || status === 3) return [{ trigger: 'pool_on_ice', minimumLevel: 'medium' }];
  if (status >= 4) return [{ trigger: 'pool_frozen', minimumLevel: 'high' }];
  return [];
}

/** Every trigger the pool's conditions raise for a position in it. */
export function poolTriggers(conditions: PoolConditions | undefined): RaisedTrigger[] {
  return conditions ? poolStatusTriggers(conditions.status) : [];
}

/**
 * A reserve's utilization in basis points, floored: d_supply x d_rate / (b_supply x b_rate) (Blend v2
 * `Reserve::utilization`, rates of the accrued reserve); `null` without supply.
 */
export function utilizationBps(reserve: Reserve): number | null {
  const supplied = reserve.data.bSupply * reserve.data.bRate;
  if (supplied <= 0n) return null;
  return Number((reserve.data.dSupply * reserve.data.dRate * 10_000n) / supplied);
}

/**
 * `high_utilization` when a reserve the position borrows is at or above the wallet's bounds (`utilizationAlertBps`:
 * high, `utilizationWarnBps`: medium; the defaults 9000 / 8000 where the bounds have none): its lenders may not be
 * able to withdraw, and its rate climbs. One trigger, at the worst reserve's level.
 */
export function utilizationTriggers(
  reserves: readonly Reserve[],
  positions: Positions,
  bounds?: RiskLevelBounds,
): RaisedTrigger[] {
  const warn = bounds?.utilizationWarnBps ?? DEFAULT_RISK_BOUNDS.utilizationWarnBps ?? 8000;
  const alert = bounds?.utilizationAlertBps ?? DEFAULT_RISK_BOUNDS.utilizationAlertBps ?? 9000;
  let worst: RiskLevel | undefined;
  for (const [index, dTokens] of positions.liabilities) {
    const reserve = reserves[index];
    const bps = dTokens > 0n && reserve ? utilizationBps(reserve) : null;
    if (bps === null) continue;
    if (bps >= alert) worst = 'high';
    else if (bps >= warn && worst === undefined) worst = 'medium';
  }
  return worst ? [{ trigger: 'high_utilization', minimumLevel: worst }] : [];
}

/**
 * `stablecoin_depeg` (high) when a stablecoin the position holds as collateral or owes is priced by the pool's
 * oracle off $1 by more than the wallet's `depegBps` (default 200): the position's value no longer means what it
 * says, and the oracle may move it further. A price the oracle does not have raises nothing here.
 */
export function depegTriggers(
  reserves: readonly Reserve[],
  prices: SummaryPrices,
  positions: Positions,
  stablecoins: ReadonlySet<string> | undefined,
  bounds?: RiskLevelBounds,
): RaisedTrigger[] {
  if (!stablecoins || stablecoins.size === 0) return [];
  const limit = BigInt(bounds?.depegBps ?? DEFAULT_RISK_BOUNDS.depegBps ?? 200);
  const one = 10n ** BigInt(prices.decimals);
  const held = [...positions.collateral, ...positions.liabilities].filter(([, amount]) => amount > 0n);
  const depegged = held.some(([index]) => {
    const asset = reserves[index]?.asset;
    const price = asset && stablecoins.has(asset) ? prices.prices.get(asset)?.price : undefined;
    if (price === undefined) return false;
    const off = price > one ? price - one : one - price;
    return off * 10_000n > limit * one;
  });
  return depegged ? [{ trigger: 'stablecoin_depeg', minimumLevel: 'high' }] : [];
}
