import type { Channel, RiskAlert, RiskLevel } from '@rp/contracts';

export type AlertSource = 'monitor' | 'webhook' | 'trigger' | 'test';

export interface IntakeOptions {
  source: AlertSource;
  /** The admin trigger and `routing.priority: "urgent"` skip the cooldown. */
  bypassCooldown?: boolean;
  /** `routing.channels`; default: every enabled channel of the wallet. */
  channels?: Channel[];
  /** The trigger's body `minRiskLevel` overrides the per-channel minimum when given. */
  minRiskLevel?: RiskLevel;
  /** The inbound webhook: the same `alertId` within 24 hours is taken once (the repeat is a `duplicate`). */
  acceptOnce?: boolean;
}

export interface IntakeResult {
  alertId: string;
  queued: Channel[];
  suppressed: Channel[];
  /** The `alertId` was taken within 24 hours (`acceptOnce`): nothing queued. */
  duplicate?: true;
}

/** One alert of a batch handed to the intake. */
export interface IntakeEntry {
  alert: RiskAlert;
  options: IntakeOptions;
}

/** What the intake did with one alert of a batch (in the batch's order): what the alert history records. */
export interface IntakeOutcome extends IntakeEntry {
  result: IntakeResult;
}
