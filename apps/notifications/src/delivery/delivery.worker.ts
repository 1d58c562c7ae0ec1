import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectRedisSettings, type RedisSettings, bullConnection } from '@rp/platform';
import { Worker } from 'bullmq';
import { NotificationsSettings } from '../settings/notifications-settings';
import { DELIVERY_QUEUE, type DeliveryJobData } from './delivery-job';
import { DeliveryProcessor } from './delivery.processor';

/**
 * The BullMQ worker of the `worker` role: `NOTIFICATIONS_WORKER_CONCURRENCY` deliveries at once; a job whose worker
 * died is taken over after its lock expires (stalled-job recovery). Shutdown waits for running deliveries.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('DeliveryWorker');
  private worker?: Worker<DeliveryJobData>;

  constructor(
    private readonly config: NotificationsSettings,
    @InjectRedisSettings() private readonly settings: RedisSettings,
    private readonly processor: DeliveryProcessor,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.runs('worker')) return;
    this.worker = new Worker<DeliveryJobData>(DELIVERY_QUEUE, (job, token) => this.processor.process(job, token), {
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
