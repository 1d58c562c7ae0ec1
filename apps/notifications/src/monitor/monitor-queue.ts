import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectRedisSettings, type RedisSettings, bullConnection } from '@rp/platform';
import { Queue } from 'bullmq';
import { NotificationsSettings } from '../settings/notifications-settings';
import { MONITOR_JOB_ATTEMPTS, MONITOR_QUEUE, type MonitorBatchJob, monitorJobId } from './monitor-job';

const JOBS_PER_ADD = 4;

/** The producer side of the monitor's batch jobs (the scheduler). */
@Injectable()
export class MonitorQueue implements OnApplicationShutdown {
  readonly queue: Queue<MonitorBatchJob>;

  constructor(@InjectRedisSettings() settings: RedisSettings, config: NotificationsSettings) {
    this.queue = new Queue<MonitorBatchJob>(MONITOR_QUEUE, {
      connection: bullConnection(settings, 'notifications-monitor-queue'),
      prefix: config.bullPrefix(),
    });
    this.queue.on('error', () => undefined);
  }

  /**
   * Adds a round's batches a few at a time, so that workers start on the first ones while the rest are added (at
   * 50k wallets the round's jobs carry 3 MB).
   */
  async addRound(round: number, batches: readonly MonitorBatchJob[]): Promise<void> {
    for (let start = 0; start < batches.length; start += JOBS_PER_ADD) {
      await this.queue.addBulk(
        batches.slice(start, start + JOBS_PER_ADD).map((data, offset) => ({
          name: 'batch',
          data,
          opts: {
            jobId: monitorJobId(round, start + offset),
            attempts: MONITOR_JOB_ATTEMPTS,
            removeOnComplete: true,
            removeOnFail: { age: 3600 },
          },
        })),
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close();
  }
}
