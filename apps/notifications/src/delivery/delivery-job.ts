import { createHash } from 'node:crypto';
import type { Channel, RiskAlert } from '@rp/contracts';
import type { AccountEventNotice } from '../account-events/account-event-notice';
import type { AlertSource } from '../alerts/alert';

export const DELIVERY_QUEUE = 'deliveries';
/** Attempts per delivery (spec, Limits: max 5 retries), backoff doubling from this delay. */
export const DELIVERY_ATTEMPTS = 5;
export const BACKOFF_BASE_MS = 1000;

/** What every delivery job carries besides what it delivers: the channel configuration (by id) it goes to. */
interface DeliveryJobBase {
  channel: Channel;
  configId: string;
  /** Epoch ms when the alert was taken in (intake -> delivered latency). */
  queuedAt: number;
  /** The destination's lane (ordering key), fixed at intake. */
  lane: string;
  /** Epoch ms of the first send attempt, once one failed. */
  firstAttemptAt?: number;
  /** Re-drives of this job from the DLQ so far. */
  redriven?: number;
  /** Attempts spent before this job existed: its alert's fan-out job tried once and handed the delivery over. */
  attemptsBefore?: number;
}

/** What is delivered: a risk alert, or an account's event for its own channels (`POST /rms/events`, source `agent`). */
export type DeliveryContent =
  | { alert: RiskAlert; source: AlertSource; event?: undefined }
  | { event: AccountEventNotice; source: 'agent'; alert?: undefined };

export type DeliveryJobData = DeliveryJobBase & DeliveryContent;

/** The id (an alert's, or an event's delivery id) and the wallet of what a job delivers: the DLQ entry's. */
export function subjectOf(data: DeliveryJobData): { id: string; walletAddress: string } {
  return data.event
    ? { id: data.event.deliveryId, walletAddress: data.event.walletAddress }
    : { id: data.alert.alertId, walletAddress: data.alert.address };
}

/** Attempts spent on a delivery: those before its job (a fan-out's) and this job's, the current one included. */
export function attemptsSpent(data: DeliveryJobData, attemptsMade: number): number {
  return (data.attemptsBefore ?? 0) + attemptsMade + 1;
}

/**
 * The id of one delivery, an (alert, channel configuration): its lane entry, its `sent:` key and its per-channel
 * job's id (the same alert twice is one job: BullMQ refuses duplicate ids).
 */
export function deliveryJobId(alertId: string, channel: Channel, configId: string): string {
  const digest = createHash('sha256').update(`${alertId}\u0000${configId}`).digest('hex').slice(0, 32);
  return `${channel}-${digest}`;
}
