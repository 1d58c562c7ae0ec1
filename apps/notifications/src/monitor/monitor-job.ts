import type { RiskLevel } from '@rp/contracts';

export const MONITOR_QUEUE = 'rms-monitor';

/** One batch of a round: wallets with the lowest level any of their channels wants. */
export interface MonitorBatchJob {
  readonly round: number;
  /** The ledger the round evaluates (alert ids derive from it). */
  readonly ledger: number;
  readonly wallets: readonly (readonly [string, RiskLevel])[];
}

/** Deterministic: a batch added twice (a scheduler retrying) is one job. */
export const monitorJobId = (round: number, index: number): string => `round-${round}-batch-${index}`;

/** A batch that fails is retried once at once; after that the round counts it as done (the next round re-reads). */
export const MONITOR_JOB_ATTEMPTS = 2;
