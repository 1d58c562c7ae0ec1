import type { RecommendedAction, RiskLevel } from './risk-level';

/**
 * The spec's "Alert" table, exactly: one position's risk at one time, with its id (outputs use the
 * `low/medium/high/critical` vocabulary). The one shape of an alert: the risk route's position view, the webhook's
 * payload and the agent's audit snapshot are derived from it.
 */
export interface RiskAlert {
  alertId: string;
  /** The wallet (G-address). */
  address: string;
  poolAddress: string;
  riskLevel: RiskLevel;
  /** Blend's health factor (7 decimals as a number). */
  healthFactor: number;
  triggers: string[];
  collateralValueUsd: number;
  liabilityValueUsd: number;
  recommendedAction: RecommendedAction;
  evaluatedAt: string;
}
