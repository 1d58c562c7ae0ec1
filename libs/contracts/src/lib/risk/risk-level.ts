/**
 * Risk levels. The spec has two vocabularies: the alert one (`low`..`critical`, used in outputs) and the cooldown
 * one (`healthy`..`emergency`). Every input accepts both; outputs always use the alert vocabulary.
 */
export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export const COOLDOWN_LEVELS = ['healthy', 'warn', 'alert', 'emergency'] as const;
export type CooldownLevel = (typeof COOLDOWN_LEVELS)[number];

export const COOLDOWN_LEVEL_OF: Readonly<Record<RiskLevel, CooldownLevel>> = {
  low: 'healthy',
  medium: 'warn',
  high: 'alert',
  critical: 'emergency',
};

export const RISK_LEVEL_OF: Readonly<Record<CooldownLevel, RiskLevel>> = {
  healthy: 'low',
  warn: 'medium',
  alert: 'high',
  emergency: 'critical',
};

export type Severity = 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';
export const SEVERITY: Readonly<Record<RiskLevel, Severity>> = {
  low: 'LOW',
  medium: 'MEDIUM',
  high: 'HIGH',
  critical: 'CRITICAL',
};

export const RECOMMENDED_ACTIONS = ['HOLD', 'WATCH', 'REPAY', 'LIQUIDATE'] as const;
export type RecommendedAction = (typeof RECOMMENDED_ACTIONS)[number];
export const RECOMMENDED_ACTION: Readonly<Record<RiskLevel, RecommendedAction>> = {
  low: 'HOLD',
  medium: 'WATCH',
  high: 'REPAY',
  critical: 'LIQUIDATE',
};

/** Alert cooldown per level, in seconds (spec, Limits). */
export const ALERT_COOLDOWN_SECONDS: Readonly<Record<RiskLevel, number>> = {
  low: 3600,
  medium: 1800,
  high: 600,
  critical: 120,
};

export const ALERT_TRIGGERS = [
  'low_health_factor',
  'stale_oracle',
  'pool_on_ice',
  'pool_frozen',
  'high_utilization',
  'stablecoin_depeg',
  'borrow_rate_jump',
  'liquidation_auction',
] as const;
export type AlertTrigger = (typeof ALERT_TRIGGERS)[number];

/** Reads a level in either vocabulary, ignoring case and surrounding spaces. */
export function parseRiskLevel(input: unknown): RiskLevel | undefined {
  if (typeof input !== 'string') return undefined;
  const value = input.trim().toLowerCase();
  if ((RISK_LEVELS as readonly string[]).includes(value)) return value as RiskLevel;
  if ((COOLDOWN_LEVELS as readonly string[]).includes(value)) return RISK_LEVEL_OF[value as CooldownLevel];
  return undefined;
}

/** Negative when `a` is less severe than `b`, zero when equal, positive when worse. */
export function compareRiskLevels(a: RiskLevel, b: RiskLevel): number {
  return RISK_LEVELS.indexOf(a) - RISK_LEVELS.indexOf(b);
}

export function isAtLeast(level: RiskLevel, minimum: RiskLevel): boolean {
  return compareRiskLevels(level, minimum) >= 0;
}

/** The worse of two levels. */
export function worseRiskLevel(a: RiskLevel, b: RiskLevel): RiskLevel {
  return compareRiskLevels(a, b) >= 0 ? a : b;
}
