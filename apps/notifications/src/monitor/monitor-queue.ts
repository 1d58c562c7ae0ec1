import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectRedisSettings, type RedisSettings } from '@rp/platform';
import { Queue } from 'bullmq';
import { NotificationsConfig } from '../config/notifications.config';
import { bullConnection } from '../delivery/delivery-queue';
import { MONITOR_JOB_ATTEMPTS, MONITOR_QUEUE, type MonitorBatchJob, monitorJobId } from './monitor-job';

/** The producer side of the monitor's batch jobs (the scheduler). */
@Injectable()
export class MonitorQueue implements OnApplicationShutdown {
  readonly queue: Queue<MonitorBatchJob>;

  constructor(@InjectRedisSettings() settings: RedisSettings, config: NotificationsConfig) {
    this.queue = new Queue<MonitorBatchJob>(MONITOR_QUEUE, {
      connection: bullConnection(settings, 'notifications-monitor-queue'),
      prefix: config.bullPrefix(),
    });
    this.queue.on('error', () => undefined);
  }

  async addRound(round: number, batches: readonly MonitorBatchJob[]): Promise<void> {
    if (batches.length === 0) return;
    await this.queue.addBulk(
      batches.map((data, index) => ({
        name: 'batch',
        data,
        opts: {
          jobId: monitorJobId(round, index),
          attempts: MONITOR_JOB_ATTEMPTS,
          removeOnComplete: true,
          removeOnFail: { age: 3600 },
        },
      })),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
  }
}
