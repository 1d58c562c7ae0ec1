import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectRedisSettings, type RedisSettings, bullConnection } from '@rp/platform';
import { type JobsOptions, Queue } from 'bullmq';
import { NotificationsSettings } from '../settings/notifications-settings';
import { BACKOFF_BASE_MS, DELIVERY_ATTEMPTS, DELIVERY_QUEUE, type DeliveryJobData } from './delivery-job';

export const DELIVERY_JOB_OPTIONS: JobsOptions = {
  attempts: DELIVERY_ATTEMPTS,
  backoff: { type: 'exponential', delay: BACKOFF_BASE_MS },
  removeOnComplete: { age: 24 * 3600, count: 100_000 },
  removeOnFail: { age: 24 * 3600 },
};

/** The BullMQ queue of deliveries (producer side: intake and re-drive). */
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
    await this.queue.add(data.channel, data, { ...DELIVERY_JOB_OPTIONS, jobId });
  }

  async addBulk(jobs: { jobId: string; data: DeliveryJobData }[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.queue.addBulk(
      jobs.map(({ jobId, data }) => ({ name: data.channel, data, opts: { ...DELIVERY_JOB_OPTIONS, jobId } })),
    );
  }

  /** Waiting + delayed + active jobs. */
  async depth(): Promise<number> {
    const counts = await this.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
  }
}
