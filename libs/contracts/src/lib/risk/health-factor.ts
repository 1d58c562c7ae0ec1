import { RiskLevel } from './risk-level';

/** Health factors are carried as fixed-point integers with 7 decimals, like Blend's own factors. */
export const HEALTH_FACTOR_DECIMALS = 7;
export const HEALTH_FACTOR_SCALE = 10_000_000n;

/** Lower bounds, inclusive: 1.50 and above is low, 1.25 medium, 1.10 high, below 1.10 critical. */
export const RISK_THRESHOLDS: Readonly<Record<Exclude<RiskLevel, 'critical'>, bigint>> = {
  low: 15_000_000n,
  medium: 12_500_000n,
  high: 11_000_000n,
};

/**
 * The health factors (7 decimals) below which a position is at each level: below `medium` it is medium, below
 * `high` high, below `critical` critical (strictly decreasing). A wallet's risk configuration may set its own.
 */
export interface RiskLevelBounds {
  readonly medium: bigint;
  readonly high: bigint;
  readonly critical: bigint;
  /** Utilization of a borrowed reserve, in basis points, from which `high_utilization` is medium / high. */
  readonly utilizationWarnBps?: number;
  readonly utilizationAlertBps?: number;
  /** How far, in basis points, a stablecoin's oracle price may be off $1 before `stablecoin_depeg`. */
  readonly depegBps?: number;
  /** How old, in seconds of ledger time, an oracle price of a held asset may be before `stale_oracle`. */
  readonly oracleMaxAgeSeconds?: number;
}

/** DECISIONS.md's bounds: 1.50 / 1.25 / 1.10. */
export const DEFAULT_RISK_BOUNDS: RiskLevelBounds = {
  medium: RISK_THRESHOLDS.low,
  high: RISK_THRESHOLDS.medium,
  critical: RISK_THRESHOLDS.high,
  utilizationWarnBps: 8000,
  utilizationAlertBps: 9000,
  depegBps: 200,
  oracleMaxAgeSeconds: 300,
};

/**
 * Risk level of a health factor given in 7-decimal fixed point, against `bounds` (lower bounds inclusive: at
 * exactly `medium` a position is still low). `null` means the position has no debt, which is always `low`.
 */
export function riskLevelOfHealthFactor(
  scaledHealthFactor: bigint | null,
  bounds: RiskLevelBounds = DEFAULT_RISK_BOUNDS,
): RiskLevel {
  if (scaledHealthFactor === null) return 'low';
  if (scaledHealthFactor >= bounds.medium) return 'low';
  if (scaledHealthFactor >= bounds.high) return 'medium';
  if (scaledHealthFactor >= bounds.critical) return 'high';
  return 'critical';
}

/** A health factor as a number (`1.25`) in 7-decimal fixed point, rounded to the nearest unit. */
export function scaledHealthFactorOf(value: number): bigint {
  return BigInt(Math.round(value * Number(HEALTH_FACTOR_SCALE)));
}
