import type { AlertOutcome, Channel, HistoryAction, RiskLevel } from '@rp/contracts';
import type { CollectionDefinition } from '@rp/persistence';

/** Alerts, their outcomes and the agent's closes are kept a year (ADR 024). */
export const ALERT_HISTORY_RETENTION_MS = 365 * 24 * 3_600_000;

/** An alert as the intake took it in. */
export interface AlertRecord {
  /** The alert's id. */
  id: string;
  walletAddress: string;
  poolAddress: string;
  riskLevel: RiskLevel;
  /** `levelRank(riskLevel)`: "this level or worse" is a range on it. */
  levelRank: number;
  triggers: string[];
  healthFactor: number;
  evaluatedAt: Date;
  source: string;
  expiresAt: Date;
  /**
   * What the intake did on each channel configuration (`queued` or `suppressed`), at `takenAt`: written with the
   * alert, in the same write. Alerts recorded before this field held their intake outcomes as outcome records.
   */
  intake?: IntakeChannel[];
  takenAt?: Date;
}

/** The intake's outcome of an alert on one channel configuration (inside the alert's record). */
export interface IntakeChannel {
  configId: string;
  channel: Channel;
  outcome: Extract<AlertOutcome, 'queued' | 'suppressed'>;
}

/**
 * One outcome of an alert on one channel configuration. Outcomes are only ever added (the intake's, inside the
 * alert's record; then the delivery's `delivered` or `failed`): the latest one is the channel's, so a delivery that
 * finishes before the intake's record lands is still right.
 */
export interface OutcomeRecord {
  /** `<alertId>:<configId>:<outcome>`: the same outcome twice is one record. */
  id: string;
  alertId: string;
  /** The channel configuration (it belongs to one account: the history shows an account its own only). */
  configId: string;
  walletAddress: string;
  channel: Channel;
  outcome: AlertOutcome;
  at: Date;
  error?: string;
  /** The alert's time: an account's outcomes are read by wallet and time. */
  evaluatedAt: Date;
  expiresAt: Date;
}

/** A close the agent reported under an account's key: the answer's fields, and whose it is. */
export interface ActionRecord extends Omit<HistoryAction, 'occurredAt'> {
  /** `<account digest>:<eventId>`. */
  id: string;
  accountId: string;
  occurredAt: Date;
  expiresAt: Date;
}

const ttl = { field: 'expiresAt' };
/** A wallet's records since a time are read from an index, not a scan of every wallet's (ADR 034). */
const byWallet = (dateRange: string) => [{ name: 'wallet_time', fields: ['walletAddress'], dateRange }];
export const ALERT_RECORDS: CollectionDefinition = { name: 'alert_history', ttl, indexes: byWallet('evaluatedAt') };
export const OUTCOME_RECORDS: CollectionDefinition = { name: 'alert_outcomes', ttl, indexes: byWallet('evaluatedAt') };
export const ACTION_RECORDS: CollectionDefinition = {
  name: 'history_actions',
  ttl,
  indexes: [{ name: 'account_wallet_time', fields: ['accountId', 'walletAddress'], dateRange: 'occurredAt' }],
};

/** The intake's outcomes of an alert, as outcome records (they stand until a delivery's outcome follows). */
export function intakeOutcomes(record: AlertRecord): OutcomeRecord[] {
  const at = record.takenAt;
  if (!record.intake || !at) return [];
  return record.intake.map(({ configId, channel, outcome }) => ({
    id: `${record.id}:${configId}:${outcome}`,
    alertId: record.id,
    configId,
    walletAddress: record.walletAddress,
    channel,
    outcome,
    at,
    evaluatedAt: record.evaluatedAt,
    expiresAt: record.expiresAt,
  }));
}

/** Which of two outcomes of one (alert, channel configuration) stands: the later; at the same time, a final one. */
export function laterOutcome(a: OutcomeRecord, b: OutcomeRecord): OutcomeRecord {
  const byTime = a.at.getTime() - b.at.getTime();
  if (byTime !== 0) return byTime > 0 ? a : b;
  return FINALITY[a.outcome] >= FINALITY[b.outcome] ? a : b;
}

const FINALITY: Readonly<Record<AlertOutcome, number>> = { queued: 0, suppressed: 1, failed: 2, delivered: 3 };
