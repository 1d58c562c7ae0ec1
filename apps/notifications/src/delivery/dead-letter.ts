import type { Channel } from '@rp/contracts';
import type { DeliveryJobData } from './delivery-job';

/** Entries live this long (spec, Limits). */
export const DLQ_RETENTION_MS = 24 * 60 * 60 * 1000;

/** A DLQ entry (DECISIONS.md); `id` is the delivery job's id, `job` what a re-drive queues again. */
export interface DeadLetterRecord {
  id: string;
  alertId: string;
  walletAddress: string;
  channel: Channel;
  destination: string;
  attempts: number;
  lastError: string;
  firstAttemptAt: Date;
  failedAt: Date;
  expiresAt: Date;
  job: DeliveryJobData;
}

/** An entry as the DLQ route shows it: dates as ISO text, without the job's data. */
export type DeadLetterView = Omit<DeadLetterRecord, 'job' | 'firstAttemptAt' | 'failedAt' | 'expiresAt'> & {
  firstAttemptAt: string;
  failedAt: string;
  expiresAt: string;
};

export function deadLetterView(record: DeadLetterRecord): DeadLetterView {
  return {
    id: record.id,
    alertId: record.alertId,
    walletAddress: record.walletAddress,
    channel: record.channel,
    destination: record.destination,
    attempts: record.attempts,
    lastError: record.lastError,
    firstAttemptAt: record.firstAttemptAt.toISOString(),
    failedAt: record.failedAt.toISOString(),
    expiresAt: record.expiresAt.toISOString(),
  };
}
