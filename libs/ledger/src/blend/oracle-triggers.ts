import { DEFAULT_RISK_BOUNDS, type RiskLevelBounds } from '@rp/contracts';
import type { Positions, Reserve } from './layouts';
import type { RaisedTrigger } from './pool-triggers';
import type { SummaryPrices } from './position-summary';

/** The assets a position holds as collateral or owes (plain supply is not at risk). */
export function heldAssets(reserves: readonly Reserve[], positions: Positions): string[] {
  const held = [...positions.collateral, ...positions.liabilities].filter(([, amount]) => amount > 0n);
  return [...new Set(held.flatMap(([index]) => reserves[index]?.asset ?? []))];
}

/**
 * `stale_oracle` (high) when the pool oracle's price (SEP-40 `lastprice` -> `{price, timestamp}`) of an asset the
 * position holds as collateral or owes is older than the wallet's `oracleMaxAgeSeconds` (default 300), judged
 * against the ledger's close time, never the wall clock: the value the position shows may be far from the market,
 * and a price that catches up can move it at once. At exactly the bound a price is not stale yet. Without the
 * close time nothing is judged; a price the oracle does not have raises nothing here (the pool refuses it anyway).
 */
export function staleOracleTriggers(
  reserves: readonly Reserve[],
  prices: SummaryPrices,
  positions: Positions,
  ledgerCloseTime: bigint | undefined,
  bounds?: RiskLevelBounds,
): RaisedTrigger[] {
  if (ledgerCloseTime === undefined) return [];
  const maxAge = BigInt(bounds?.oracleMaxAgeSeconds ?? DEFAULT_RISK_BOUNDS.oracleMaxAgeSeconds ?? 300);
  const stale = heldAssets(reserves, positions).some((asset) => {
    const stamped = prices.prices.get(asset)?.timestamp;
    return stamped !== undefined && ledgerCloseTime - stamped > maxAge;
  });
  return stale ? [{ trigger: 'stale_oracle', minimumLevel: 'high' }] : [];
}
