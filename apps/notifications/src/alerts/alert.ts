import type { Channel, RiskLevel } from '@rp/contracts';

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
