import { Injectable } from '@nestjs/common';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import { ChannelProviders } from './channels/channel-providers';
import { DeliveryError } from './channels/delivery-error';
import { NotificationConfigRepository } from '../channel-configs/notification-config.repository';
import { type DeliveryJobData, attemptsSpent } from './delivery-job';
import { DeliveryMetrics } from './delivery-metrics';
import { DeliveryQueue } from './delivery-queue';
import { type DeliveryAttempt, DeliverySteps } from './delivery-steps';
import { type Destination, MissingBotTokenError } from './destination';
import { DestinationLanes } from './destination-lanes';

/** Longest a job behind others in its lane sleeps before looking again. */
const MAX_LANE_WAIT_MS = 2000;
const FINISHED = new Set(['completed', 'failed', 'unknown']);

/**
 * What one per-channel delivery job does, attempt by attempt (see DeliveryError for the failure kinds): every
 * delivery of a single-channel alert, and each one a fan-out job handed over (ADR 035).
 */
@Injectable()
export class DeliveryProcessor {
  constructor(
    private readonly configs: NotificationConfigRepository,
    private readonly providers: ChannelProviders,
    private readonly metrics: DeliveryMetrics,
    private readonly queue: DeliveryQueue,
    private readonly lanes: DestinationLanes,
    private readonly steps: DeliverySteps,
  ) {}

  async process(job: Job<DeliveryJobData>, token: string | undefined): Promise<string> {
    const data = job.data;
    const jobId = job.id as string;
    const startedAt = Date.now();
    const record = await this.configs.byId(data.configId);
    if (!record || !record.enabled) {
      if (record?.disabledReason)
        return this.deadLetter(job, startedAt, `channel disabled: ${record.disabledReason}`, this.steps.masked(record));
      await this.lanes.leave(data.lane, jobId);
      this.metrics.count(data.channel, 'skipped');
      return 'skipped: configuration removed or disabled';
    }
    let destination: Destination;
    try {
      destination = this.steps.destination(record);
    } catch (error) {
      if (error instanceof MissingBotTokenError)
        return this.deadLetter(job, startedAt, error.message, `chat ${record.chatId ?? ''}`);
      throw error;
    }

    const turn = await this.waitForTurn(job, token, destination);
    if (turn !== undefined) return turn;

    const message = this.steps.message(data);
    for (;;) {
      try {
        await this.providers.send(destination.address, message);
        await this.lanes.sent(data.lane, jobId);
        this.steps.delivered(data);
        return 'delivered';
      } catch (error) {
        if (error instanceof DeliveryError && error.kind === 'migrated' && error.extra.newChatId) {
          destination = await this.steps.migrate(record, error.extra.newChatId);
          const wait = await this.lanes.takeSlot(destination.paces);
          if (wait > 0) await sleep(wait);
          continue;
        }
        return this.failed(job, token, destination, startedAt, error);
      }
    }
  }

  /** Returns undefined when this job may send now; otherwise it has been delayed (no attempt spent). */
  private async waitForTurn(
    job: Job<DeliveryJobData>,
    token: string | undefined,
    destination: Destination,
  ): Promise<string | undefined> {
    const jobId = job.id as string;
    for (;;) {
      const turn = await this.lanes.turn(job.data.lane, jobId, destination.paces);
      if (turn.kind === 'go') return undefined;
      if (turn.kind === 'already-sent') {
        await this.lanes.sent(job.data.lane, jobId);
        this.metrics.count(job.data.channel, 'skipped');
        return 'already sent (retaken after a crash)';
      }
      if (turn.kind === 'behind') {
        if (await this.headIsGone(turn.head)) {
          await this.lanes.leave(job.data.lane, turn.head);
          continue;
        }
        const interval = destination.paces[0]?.intervalMs ?? 50;
        return this.delay(job, token, Math.min(MAX_LANE_WAIT_MS, Math.max(50, interval * turn.position)));
      }
      if (turn.kind === 'paced' && turn.waitMs > 100) return this.delay(job, token, turn.waitMs);
      if (turn.kind === 'paced') await sleep(turn.waitMs);
    }
  }

  /**
   * Whether the head of a lane will never leave it by itself: neither the fan-out job that carried it (which hands
   * it over to its own job before it completes) nor its own job is waiting, delayed or running.
   */
  private async headIsGone(head: string): Promise<boolean> {
    const carrier = await this.lanes.carrierOf(head);
    if (carrier && !FINISHED.has(await this.queue.queue.getJobState(carrier))) return false;
    return FINISHED.has(await this.queue.queue.getJobState(head));
  }

  private async delay(job: Job<DeliveryJobData>, token: string | undefined, ms: number): Promise<never> {
    await job.moveToDelayed(Date.now() + ms, token);
    throw new DelayedError();
  }

  private async failed(
    job: Job<DeliveryJobData>,
    token: string | undefined,
    destination: Destination,
    startedAt: number,
    error: unknown,
  ): Promise<string> {
    const data = job.data;
    if (data.firstAttemptAt === undefined) await job.updateData({ ...data, firstAttemptAt: startedAt });
    const next = await this.steps.failed(this.attemptOf(job, startedAt), destination, error);
    if (next.step === 'wait') return this.delay(job, token, next.ms);
    if (next.step === 'dead-letter') return this.deadLetter(job, startedAt, next.reason, destination.masked);
    throw next.failure;
  }

  private async deadLetter(
    job: Job<DeliveryJobData>,
    startedAt: number,
    reason: string,
    destination: string,
  ): Promise<never> {
    await this.steps.deadLetter(this.attemptOf(job, startedAt), reason, destination);
    throw new UnrecoverableError(reason);
  }

  private attemptOf(job: Job<DeliveryJobData>, startedAt: number): DeliveryAttempt {
    return { jobId: job.id as string, data: job.data, attempts: attemptsSpent(job.data, job.attemptsMade), startedAt };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
