import { createHash } from 'node:crypto';
import type { Channel } from '@rp/contracts';
import type { DeliveryContent, DeliveryJobData } from './delivery-job';

/** The job name of a fan-out job; a per-channel delivery job is named after its channel. */
export const FAN_OUT_JOB = 'fan-out';

/** One delivery of a fan-out job: what its per-channel job would carry, and that job's (and lane entry's) id. */
export interface FanOutEntry {
  /** `deliveryJobId(alertId, channel, configId)`: the lane entry, the `sent:` key and the fallback job's id. */
  jobId: string;
  channel: Channel;
  configId: string;
  lane: string;
}

/**
 * One job per alert (or account event) with two or more channel configurations (ADR 035): the worker sends every
 * entry whose turn it is and hands each other one over to its per-channel job, which does what is uncommon.
 */
export type FanOutJobData = {
  queuedAt: number;
  entries: FanOutEntry[];
  /** Entries already handed over to their per-channel job (a retaken fan-out job sends them no more). */
  handedOver?: string[];
} & DeliveryContent;

/** The same alert to the same configurations is one fan-out job (BullMQ refuses duplicate ids). */
export function fanOutJobId(id: string, entries: readonly FanOutEntry[]): string {
  const ids = entries.map((entry) => entry.jobId).sort();
  const digest = createHash('sha256')
    .update([id, ...ids].join('\u0000'))
    .digest('hex')
    .slice(0, 32);
  return `${FAN_OUT_JOB}-${digest}`;
}

/** The per-channel job's data of one entry. */
export function deliveryOf(job: FanOutJobData, entry: FanOutEntry): DeliveryJobData {
  const content: DeliveryContent = job.event
    ? { event: job.event, source: 'agent' }
    : { alert: job.alert, source: job.source };
  return { ...content, channel: entry.channel, configId: entry.configId, queuedAt: job.queuedAt, lane: entry.lane };
}
