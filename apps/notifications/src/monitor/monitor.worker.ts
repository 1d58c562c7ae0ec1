import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRedisSettings, RedisClient, type RedisSettings, bullConnection } from '@rp/platform';
import { type Job, Worker } from 'bullmq';
import { NotificationsSettings } from '../settings/notifications-settings';
import { MonitorBatchEvaluator } from './batch-evaluator';
import { MonitorKeys } from './monitor-keys';
import { MONITOR_JOB_ATTEMPTS, MONITOR_QUEUE, type MonitorBatchJob } from './monitor-job';
import { MonitorMetrics } from './monitor-metrics';

/** A round's done counter outlives any round by far. */
const DONE_TTL_SECONDS = 3600;

/**
 * The batch-job worker of the `worker` role: `RMS_MONITOR_CONCURRENCY` batches at once, any replica taking any batch
 * of a round. Each finished batch (or one that failed its last attempt) counts towards its round's end.
 */
@Injectable()
export class MonitorWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MonitorWorker');
  private worker?: Worker<MonitorBatchJob>;

  constructor(
    private readonly config: NotificationsSettings,
    @InjectRedisSettings() private readonly settings: RedisSettings,
    private readonly redis: RedisClient,
    private readonly evaluator: MonitorBatchEvaluator,
    private readonly metrics: MonitorMetrics,
    private readonly keys: MonitorKeys,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.runs('worker') || !this.config.CONTRACT_RPC_URL) return;
    this.worker = new Worker<MonitorBatchJob>(MONITOR_QUEUE, (job) => this.process(job), {
      connection: bullConnection(this.settings, 'notifications-monitor-worker'),
      prefix: this.config.bullPrefix(),
      concurrency: this.config.RMS_MONITOR_CONCURRENCY,
      lockDuration: 15_000,
      stalledInterval: 5_000,
    });
    this.worker.on('error', (error) => this.logger.warn(`worker: ${error.message}`));
  }

  async process(job: Job<MonitorBatchJob>): Promise<void> {
    try {
      const outcome = await this.evaluator.evaluate(job.data);
      this.metrics.batches.inc({ outcome: outcome.stale ? 'stale' : 'completed' });
    } catch (error) {
      const last = job.attemptsMade + 1 >= (job.opts.attempts ?? MONITOR_JOB_ATTEMPTS);
      this.metrics.batches.inc({ outcome: last ? 'failed' : 'retried' });
      this.logger.warn(`round ${job.data.round} batch ${job.id}: ${(error as Error).message}`);
      if (last) await this.countDone(job.data.round);
      throw error;
    }
    await this.countDone(job.data.round);
  }

  private async countDone(round: number): Promise<void> {
    const key = this.keys.roundDone(round);
    await this.redis.multi().incr(key).expire(key, DONE_TTL_SECONDS).exec();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker?.close();
  }
}
