import {
  type AlertTrigger,
  RECOMMENDED_ACTION,
  type RecommendedAction,
  type RiskLevel,
  type RiskLevelBounds,
  riskLevelOfHealthFactor,
  worseRiskLevel,
} from '@rp/contracts';
import { auctionTriggers } from './auction-triggers';
import { type PositionData, healthFactor, positionData } from './health';
import type { Positions, Reserve } from './layouts';
import {
  type PoolConditions,
  type RaisedTrigger,
  depegTriggers,
  poolTriggers,
  utilizationTriggers,
} from './pool-triggers';
import { type SummaryPrices, priceReader } from './position-summary';
import { staleOracleTriggers } from './oracle-triggers';
import { borrowRateJumpTriggers } from './rate-triggers';

/**
 * The risk of one position as the spec's Alert table states it: health factor, level, triggers, values in USD
 * (the oracle's base asset) and the recommended action. The level comes from the contract's own health factor
 * (7 decimals, Blend v2 integer math, collateral floored and liabilities ceiled), never from a float.
 */
export interface PositionRisk {
  /** 7 decimals; `null` without debt. */
  readonly healthFactorScaled: bigint | null;
  /** The same as a number (`1.0812345`); `null` without debt. */
  readonly healthFactor: number | null;
  readonly riskLevel: RiskLevel;
  /**
   * `low_health_factor` once the health factor is below the healthy level (`low`), then the pool's triggers
   * (`pool_on_ice`, `pool_frozen`), `high_utilization`, `stablecoin_depeg`, `stale_oracle` and `borrow_rate_jump`; with debt, the level is the worst of
   * the health factor's and the triggers' minimums (without debt the triggers do not raise it).
   */
  readonly triggers: AlertTrigger[];
  /** Collateral (not plain supply) and debt at oracle prices, before the collateral and liability factors. */
  readonly collateralValueUsd: number;
  readonly liabilityValueUsd: number;
  readonly recommendedAction: RecommendedAction;
}

/** A fixed-point integer as the nearest number: `fixedToNumber(10812345n, 7)` is 1.0812345. */
export function fixedToNumber(value: bigint, decimals: number): number {
  const negative = value < 0n;
  const magnitude = negative ? -value : value;
  const scale = 10n ** BigInt(decimals);
  const whole = magnitude / scale;
  const fraction = (magnitude % scale).toString().padStart(decimals, '0');
  const parsed = Number(decimals > 0 ? `${whole}.${fraction}` : `${whole}`);
  return negative ? -parsed : parsed;
}

/**
 * The risk of a position from its totals (`positionData`), levels from `bounds` (the defaults unless given), raised
 * by the `raised` triggers (the pool's and its reserves').
 */
export function riskOfPositionData(
  data: PositionData,
  bounds?: RiskLevelBounds,
  raised: readonly RaisedTrigger[] = [],
): PositionRisk {
  const scaled = healthFactor(data);
  const healthLevel = riskLevelOfHealthFactor(scaled, bounds);
  // Without debt there is nothing to repay or liquidate: the triggers are named, the level stays the health
  // factor's (`low`), so the recommended action never asks to repay what is not owed.
  const riskLevel =
    scaled === null ? healthLevel : raised.reduce((level, r) => worseRiskLevel(level, r.minimumLevel), healthLevel);
  const decimals = data.scalar.toString().length - 1;
  const triggers: AlertTrigger[] = healthLevel === 'low' ? [] : ['low_health_factor'];
  return {
    healthFactorScaled: scaled,
    healthFactor: scaled === null ? null : fixedToNumber(scaled, 7),
    riskLevel,
    triggers: [...triggers, ...raised.map((r) => r.trigger)],
    collateralValueUsd: fixedToNumber(data.collateralRaw, decimals),
    liabilityValueUsd: fixedToNumber(data.liabilityRaw, decimals),
    recommendedAction: RECOMMENDED_ACTION[riskLevel],
  };
}

/**
 * The risk of a user's positions in a pool whose reserves are accrued and whose prices were read. Only the prices
 * of reserves the user holds collateral or debt in are needed; a missing one throws `MissingPriceError` (the pool
 * itself refuses such a position with InvalidPrice).
 */
export function assessPosition(
  reserves: readonly Reserve[],
  prices: SummaryPrices,
  positions: Positions,
  bounds?: RiskLevelBounds,
  conditions?: PoolConditions,
): PositionRisk {
  return riskOfPositionData(positionData(reserves, positions, priceReader(prices), prices.decimals), bounds, [
    ...poolTriggers(conditions),
    ...utilizationTriggers(reserves, positions, bounds),
    ...depegTriggers(reserves, prices, positions, conditions?.stablecoins, bounds),
    ...staleOracleTriggers(reserves, prices, positions, conditions?.ledgerCloseTime, bounds),
    ...borrowRateJumpTriggers(reserves, positions, conditions?.previousBorrowRates),
    ...auctionTriggers(conditions?.liquidationAuction),
  ]);
}

/** Whether the user has collateral or debt in the pool (plain supply is not a position at risk). */
export function holdsCollateralOrDebt(positions: Positions): boolean {
  const any = (book: ReadonlyMap<number, bigint>) => [...book.values()].some((amount) => amount > 0n);
  return any(positions.collateral) || any(positions.liabilities);
}
