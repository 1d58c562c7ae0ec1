import {
  type AlertTrigger,
  RECOMMENDED_ACTION,
  type RiskLevel,
  type RiskLevelBounds,
  riskLevelOfHealthFactor,
} from '@rp/contracts';
import type { Positions } from './layouts';
import { SCALAR_7, SCALAR_12 } from './math';
import { type PositionRisk, fixedToNumber } from './position-risk';
import type { PoolFacts, ReserveFacts } from './reserve-facts';

/**
 * What the monitor needs of a position every round: `assessPosition`'s health factor, level and triggers, computed
 * from the round's `PoolFacts` with the same integers (collateral floored and liabilities ceiled at every step),
 * without the USD values (`positionRiskOf` adds them for a position that alerts).
 */
export interface PositionLevel {
  readonly healthFactorScaled: bigint | null;
  readonly healthFactor: number | null;
  readonly riskLevel: RiskLevel;
  readonly triggers: readonly AlertTrigger[];
}

/** Why a position has no level: nothing held as collateral or debt, or a held reserve without an oracle price. */
export type NoPositionLevel = 'empty' | 'missing_price';

const RANK: Readonly<Record<RiskLevel, number>> = { low: 0, medium: 1, high: 2, critical: 3 };
const NO_TRIGGERS: readonly AlertTrigger[] = Object.freeze([]);

/** Whether any amount of the book is above 0. */
function holdsAny(book: ReadonlyMap<number, bigint>): boolean {
  for (const amount of book.values()) if (amount > 0n) return true;
  return false;
}

/**
 * `assessPosition(reserves, prices, positions, bounds, conditions)` for a pool whose facts are `facts`
 * (`poolFacts(reserves, prices, conditions)`, `facts.positive`): the same health factor, level and triggers, in the
 * same order. `'empty'` where `holdsCollateralOrDebt` is false, `'missing_price'` where `assessPosition` throws
 * `MissingPriceError`.
 */
export function positionLevel(
  facts: PoolFacts,
  positions: Positions,
  bounds: RiskLevelBounds | undefined,
  liquidationAuction: boolean,
): PositionLevel | NoPositionLevel {
  if (!holdsAny(positions.collateral) && !holdsAny(positions.liabilities)) return 'empty';
  const limits = facts.limitsOf(bounds);
  const reserves = facts.reserves;
  let collateral = 0n;
  let liabilities = 0n;
  let depeg = false;
  let stale = false;
  let utilization = 0;
  let jumped = false;
  // The price is needed wherever an amount is not 0; an amount counts only above 0 (as `positionData` does).
  for (const [index, bTokens] of positions.collateral) {
    const reserve = reserves[index];
    if (reserve === undefined || bTokens === 0n) continue;
    if (reserve.price === undefined) return 'missing_price';
    if (bTokens < 0n) continue;
    const underlying = (bTokens * reserve.bRate) / SCALAR_12;
    collateral += (reserve.price * ((underlying * reserve.cFactor) / SCALAR_7)) / reserve.scalar;
    depeg ||= isDepegged(reserve, limits.depegLimit);
    stale ||= isStale(reserve, limits.maxPriceAge);
  }
  for (const [index, dTokens] of positions.liabilities) {
    const reserve = reserves[index];
    if (reserve === undefined || dTokens === 0n) continue;
    if (reserve.price === undefined) return 'missing_price';
    if (dTokens < 0n) continue;
    const underlying = ceilDiv(dTokens * reserve.dRate, SCALAR_12);
    liabilities += ceilDiv(reserve.price * ceilDiv(underlying * SCALAR_7, reserve.lFactor), reserve.scalar);
    depeg ||= isDepegged(reserve, limits.depegLimit);
    stale ||= isStale(reserve, limits.maxPriceAge);
    jumped ||= reserve.borrowRateJumped;
    const bps = reserve.utilizationBps;
    if (bps !== null) {
      if (bps >= limits.utilizationAlertBps) utilization = 2;
      else if (bps >= limits.utilizationWarnBps && utilization === 0) utilization = 1;
    }
  }
  const scaled = liabilities === 0n ? null : (collateral * SCALAR_7) / liabilities;
  const healthLevel = riskLevelOfHealthFactor(scaled, bounds);
  let rank = RANK[healthLevel];
  const raised = facts.poolRaised;
  if (
    healthLevel === 'low' &&
    raised.length === 0 &&
    utilization === 0 &&
    !depeg &&
    !stale &&
    !jumped &&
    !liquidationAuction
  ) {
    return {
      healthFactorScaled: scaled,
      healthFactor: healthFactorOf(scaled),
      riskLevel: 'low',
      triggers: NO_TRIGGERS,
    };
  }
  const triggers: AlertTrigger[] = healthLevel === 'low' ? [] : ['low_health_factor'];
  for (const { trigger, minimumLevel } of raised) {
    triggers.push(trigger);
    rank = Math.max(rank, RANK[minimumLevel]);
  }
  if (utilization > 0) triggers.push('high_utilization');
  if (depeg) triggers.push('stablecoin_depeg');
  if (stale) triggers.push('stale_oracle');
  if (jumped) triggers.push('borrow_rate_jump');
  if (liquidationAuction) triggers.push('liquidation_auction');
  // Each trigger's lowest level (pool-triggers.ts and its neighbours): the level is the worst of them and the
  // health factor's; without debt the triggers are named but the level stays the health factor's.
  if (utilization > 0) rank = Math.max(rank, utilization === 2 ? RANK.high : RANK.medium);
  if (depeg || stale) rank = Math.max(rank, RANK.high);
  if (jumped) rank = Math.max(rank, RANK.medium);
  if (liquidationAuction) rank = RANK.critical;
  return {
    healthFactorScaled: scaled,
    healthFactor: healthFactorOf(scaled),
    riskLevel: scaled === null ? healthLevel : LEVELS[rank],
    triggers,
  };
}

const healthFactorOf = (scaled: bigint | null): number | null => (scaled === null ? null : fixedToNumber(scaled, 7));

const LEVELS: readonly RiskLevel[] = ['low', 'medium', 'high', 'critical'];

/** ceil(n / d) for n >= 0 and d > 0. */
const ceilDiv = (n: bigint, d: bigint): bigint => (n + d - 1n) / d;

function isDepegged(reserve: ReserveFacts, limit: bigint | undefined): boolean {
  return limit !== undefined && reserve.depegOffTimes10k !== undefined && reserve.depegOffTimes10k > limit;
}

function isStale(reserve: ReserveFacts, maxAge: bigint | undefined): boolean {
  return maxAge !== undefined && reserve.priceAge !== undefined && reserve.priceAge > maxAge;
}

/**
 * The full `PositionRisk` of a position whose level is `level`: the collateral (not plain supply) and debt at oracle
 * prices before the factors, as `assessPosition` values them, and the level's recommended action.
 */
export function positionRiskOf(facts: PoolFacts, positions: Positions, level: PositionLevel): PositionRisk {
  let collateral = 0n;
  let liabilities = 0n;
  for (const [index, bTokens] of positions.collateral) {
    const reserve = facts.reserves[index];
    if (reserve?.price === undefined || bTokens <= 0n) continue;
    collateral += (reserve.price * ((bTokens * reserve.bRate) / SCALAR_12)) / reserve.scalar;
  }
  for (const [index, dTokens] of positions.liabilities) {
    const reserve = facts.reserves[index];
    if (reserve?.price === undefined || dTokens <= 0n) continue;
    liabilities += ceilDiv(reserve.price * ceilDiv(dTokens * reserve.dRate, SCALAR_12), reserve.scalar);
  }
  return {
    healthFactorScaled: level.healthFactorScaled,
    healthFactor: level.healthFactor,
    riskLevel: level.riskLevel,
    triggers: [...level.triggers],
    collateralValueUsd: fixedToNumber(collateral, facts.decimals),
    liabilityValueUsd: fixedToNumber(liabilities, facts.decimals),
    recommendedAction: RECOMMENDED_ACTION[level.riskLevel],
  };
}
