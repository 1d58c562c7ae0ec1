import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectRedisSettings, type RedisSettings, bullConnection } from '@rp/platform';
import { type Job, Worker } from 'bullmq';
import { NotificationsSettings } from '../settings/notifications-settings';
import { DELIVERY_QUEUE, type DeliveryJobData } from './delivery-job';
import { DeliveryProcessor } from './delivery.processor';
import { FAN_OUT_JOB, type FanOutJobData } from './fan-out-job';
import { FanOutProcessor } from './fan-out.processor';

/**
 * The BullMQ worker of the `worker` role: `NOTIFICATIONS_WORKER_CONCURRENCY` jobs at once (an alert's fan-out job,
 * or one delivery's per-channel job, ADR 035); a job whose worker
 * died is taken over after its lock expires (stalled-job recovery). Shutdown waits for running deliveries.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('DeliveryWorker');
  private worker?: Worker<DeliveryJobData | FanOutJobData>;

  constructor(
    private readonly config: NotificationsSettings,
    @InjectRedisSettings() private readonly settings: RedisSettings,
    private readonly processor: DeliveryProcessor,
    private readonly fanOut: FanOutProcessor,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.runs('worker')) return;
    const run = (job: Job<DeliveryJobData | FanOutJobData>, token?: string) =>
      job.name === FAN_OUT_JOB
        ? this.fanOut.process(job as Job<FanOutJobData>)
        : this.processor.process(job as Job<DeliveryJobData>, token);
    this.worker = new Worker<DeliveryJobData | FanOutJobData>(DELIVERY_QUEUE, run, {
      connection: bullConnection(this.settings, 'notifications-worker'),
      prefix: this.config.bullPrefix(),
      concurrency: this.config.NOTIFICATIONS_WORKER_CONCURRENCY,
      lockDuration: 10_000,
      stalledInterval: 5_000,
      maxStalledCount: 3,
    });
    this.worker.on('error', (error) => this.logger.warn(`worker: ${error.message}`));
    this.logger.log(`delivery worker started (concurrency ${this.config.NOTIFICATIONS_WORKER_CONCURRENCY})`);
  }

  /** Before Redis, the database and the providers close: running deliveries still need them. */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.worker) return;
    this.logger.log('delivery worker stopping: waiting for running deliveries');
    await this.worker.close();
  }
}
