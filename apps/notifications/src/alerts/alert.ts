import type { Channel, RecommendedAction, RiskLevel } from '@rp/contracts';

export type { Channel, RecommendedAction, RiskLevel } from '@rp/contracts';

/** The spec's "Alert" table, exactly (outputs use the `low/medium/high/critical` vocabulary). */
export interface RiskAlert {
  alertId: string;
  address: string;
  poolAddress: string;
  riskLevel: RiskLevel;
  healthFactor: number;
  triggers: string[];
  collateralValueUsd: number;
  liabilityValueUsd: number;
  recommendedAction: RecommendedAction;
  evaluatedAt: string;
}

export type AlertSource = 'monitor' | 'webhook' | 'trigger' | 'test';

export interface IntakeOptions {
  source: AlertSource;
  /** The admin trigger and `routing.priority: "urgent"` skip the cooldown. */
  bypassCooldown?: boolean;
  /** `routing.channels`; default: every enabled channel of the wallet. */
  channels?: Channel[];
  /** The trigger's body `minRiskLevel` overrides the per-channel minimum when given. */
  minRiskLevel?: RiskLevel;
}

export interface IntakeResult {
  alertId: string;
  queued: Channel[];
  suppressed: Channel[];
}
