import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectRedisSettings, type RedisSettings, bullConnection } from '@rp/platform';
import { type JobsOptions, Queue } from 'bullmq';
import { NotificationsSettings } from '../settings/notifications-settings';
import { BACKOFF_BASE_MS, DELIVERY_ATTEMPTS, DELIVERY_QUEUE, type DeliveryJobData } from './delivery-job';
import { FAN_OUT_JOB, type FanOutJobData } from './fan-out-job';

export const DELIVERY_JOB_OPTIONS: JobsOptions = {
  attempts: DELIVERY_ATTEMPTS,
  backoff: { type: 'exponential', delay: BACKOFF_BASE_MS },
  removeOnComplete: { age: 24 * 3600, count: 100_000 },
  removeOnFail: { age: 24 * 3600 },
};

/** A per-channel delivery job to add, `delayMs` from now when given (a fan-out's hand-over). */
export interface QueuedDelivery {
  jobId: string;
  data: DeliveryJobData;
  delayMs?: number;
}

export interface QueuedFanOut {
  jobId: string;
  fanOut: FanOutJobData;
}

/**
 * A per-channel job's options: the attempts left once `attemptsBefore` were spent, the backoff going on doubling
 * from where it was (five attempts in all, 1 s, 2 s, 4 s, 8 s apart, whichever job made them).
 */
function deliveryOptions(jobId: string, data: DeliveryJobData, delayMs = 0): JobsOptions {
  const before = data.attemptsBefore ?? 0;
  return {
    ...DELIVERY_JOB_OPTIONS,
    jobId,
    ...(before > 0 && {
      attempts: Math.max(1, DELIVERY_ATTEMPTS - before),
      backoff: { type: 'exponential', delay: BACKOFF_BASE_MS * 2 ** before },
    }),
    ...(delayMs > 0 && { delay: Math.ceil(delayMs) }),
  };
}

/** The BullMQ queue of deliveries (producer side: intake, fan-out hand-overs and re-drive). */
@Injectable()
export class DeliveryQueue implements OnApplicationShutdown {
  readonly queue: Queue;

  constructor(@InjectRedisSettings() settings: RedisSettings, config: NotificationsSettings) {
    this.queue = new Queue(DELIVERY_QUEUE, {
      connection: bullConnection(settings, 'notifications-queue'),
      prefix: config.bullPrefix(),
    });
    this.queue.on('error', () => undefined);
  }

  async add(jobId: string, data: DeliveryJobData): Promise<void> {
    await this.addBulk([{ jobId, data }]);
  }

  /** Per-channel jobs and fan-out jobs, in one round trip. */
  async addBulk(jobs: readonly (QueuedDelivery | QueuedFanOut)[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.queue.addBulk(
      jobs.map((job) =>
        'fanOut' in job
          ? { name: FAN_OUT_JOB, data: job.fanOut, opts: { ...DELIVERY_JOB_OPTIONS, jobId: job.jobId } }
          : { name: job.data.channel, data: job.data, opts: deliveryOptions(job.jobId, job.data, job.delayMs) },
      ),
    );
  }

  /** Waiting + delayed + active jobs (a fan-out job counts once, whatever its deliveries). */
  async depth(): Promise<number> {
    const counts = await this.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
  }
}
