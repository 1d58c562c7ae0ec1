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
 * Risk level of a health factor given in 7-decimal fixed point. `null` means the position has no debt,
 * which is always `low`.
 */
export function riskLevelOfHealthFactor(scaledHealthFactor: bigint | null): RiskLevel {
  if (scaledHealthFactor === null) return 'low';
  if (scaledHealthFactor >= RISK_THRESHOLDS.low) return 'low';
  if (scaledHealthFactor >= RISK_THRESHOLDS.medium) return 'medium';
  if (scaledHealthFactor >= RISK_THRESHOLDS.high) return 'high';
  return 'critical';
}
