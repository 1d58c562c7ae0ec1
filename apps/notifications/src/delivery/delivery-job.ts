import { createHash } from 'node:crypto';
import type { Channel } from '@rp/contracts';
import type { AlertSource, RiskAlert } from '../alerts/alert';

export const DELIVERY_QUEUE = 'deliveries';
/** Attempts per delivery (spec, Limits: max 5 retries), backoff doubling from this delay. */
export const DELIVERY_ATTEMPTS = 5;
export const BACKOFF_BASE_MS = 1000;

/** What one delivery job carries: the alert and the channel configuration (by id) it goes to. */
export interface DeliveryJobData {
  alert: RiskAlert;
  channel: Channel;
  configId: string;
  source: AlertSource;
  /** Epoch ms when the alert was taken in (intake -> delivered latency). */
  queuedAt: number;
  /** The destination's lane (ordering key), fixed at intake. */
  lane: string;
  /** Epoch ms of the first send attempt, once one failed. */
  firstAttemptAt?: number;
  /** Re-drives of this job from the DLQ so far. */
  redriven?: number;
}

/** One job per (alert, channel configuration): the same alert twice is one job (BullMQ refuses duplicate ids). */
export function deliveryJobId(alertId: string, channel: Channel, configId: string): string {
  const digest = createHash('sha256').update(`${alertId}\u0000${configId}`).digest('hex').slice(0, 32);
  return `${channel}-${digest}`;
}
