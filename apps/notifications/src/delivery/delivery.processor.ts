import { Injectable, Logger } from '@nestjs/common';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import { renderAccountEvent } from '../account-events/account-event-message';
import { renderAlert } from './channels/alert-message';
import { ChannelProviders } from './channels/channel-providers';
import { DeliveryError } from './channels/delivery-error';
import { NotificationsSettings } from '../settings/notifications-settings';
import type { ChannelConfigRecord } from '../channel-configs/notification-config';
import { NotificationConfigRepository } from '../channel-configs/notification-config.repository';
import { SecretBox } from '../channel-configs/secret-box';
import { DLQ_RETENTION_MS } from './dead-letter';
import { DeadLetterRepository } from './dead-letter.repository';
import { DELIVERY_ATTEMPTS, type DeliveryJobData, subjectOf } from './delivery-job';
import { DeliveryMetrics } from './delivery-metrics';
import { DeliveryQueue } from './delivery-queue';
import { type Destination, MissingBotTokenError, destinationOf } from './destination';
import { DestinationLanes } from './destination-lanes';
import { HistoryRecorder } from '../history/history-recorder';

const BLOCKED_NOTE = 'messenger disabled for this wallet (bot blocked); register the channel again to re-enable it';
/** Longest a job behind others in its lane sleeps before looking again. */
const MAX_LANE_WAIT_MS = 2000;

/** What one delivery job does, attempt by attempt (see DeliveryError for the failure kinds). */
@Injectable()
export class DeliveryProcessor {
  private readonly logger = new Logger('Delivery');

  constructor(
    private readonly config: NotificationsSettings,
    private readonly configs: NotificationConfigRepository,
    private readonly box: SecretBox,
    private readonly providers: ChannelProviders,
    private readonly dlq: DeadLetterRepository,
    private readonly metrics: DeliveryMetrics,
    private readonly queue: DeliveryQueue,
    private readonly lanes: DestinationLanes,
    private readonly history: HistoryRecorder,
  ) {}

  async process(job: Job<DeliveryJobData>, token: string | undefined): Promise<string> {
    const data = job.data;
    const jobId = job.id as string;
    const startedAt = Date.now();
    const record = await this.configs.byId(data.configId);
    if (!record || !record.enabled) {
      if (record?.disabledReason)
        return this.deadLetter(job, startedAt, `channel disabled: ${record.disabledReason}`, this.maskedOf(record));
      await this.lanes.leave(data.lane, jobId);
      this.metrics.count(data.channel, 'skipped');
      return 'skipped: configuration removed or disabled';
    }
    let destination: Destination;
    try {
      destination = destinationOf(record, this.box, this.config.MESSENGER_BOT_TOKEN);
    } catch (error) {
      if (error instanceof MissingBotTokenError)
        return this.deadLetter(job, startedAt, error.message, `chat ${record.chatId ?? ''}`);
      throw error;
    }

    const turn = await this.waitForTurn(job, token, destination);
    if (turn !== undefined) return turn;

    const message = data.event ? renderAccountEvent(data.event) : renderAlert(data.alert, data.source);
    for (;;) {
      try {
        await this.providers.send(destination.address, message);
        await this.lanes.sent(data.lane, jobId);
        this.metrics.delivered(data.channel, data.queuedAt);
        this.history.recordDelivery(data, 'delivered');
        return 'delivered';
      } catch (error) {
        if (error instanceof DeliveryError && error.kind === 'migrated' && error.extra.newChatId) {
          destination = await this.migrate(record, error.extra.newChatId);
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
      if (turn.waitMs > 100) return this.delay(job, token, turn.waitMs);
      await sleep(turn.waitMs);
    }
  }

  private async headIsGone(head: string): Promise<boolean> {
    const state = await this.queue.queue.getJobState(head);
    return state === 'completed' || state === 'failed' || state === 'unknown';
  }

  private async delay(job: Job<DeliveryJobData>, token: string | undefined, ms: number): Promise<never> {
    await job.moveToDelayed(Date.now() + ms, token);
    throw new DelayedError();
  }

  private async migrate(record: ChannelConfigRecord, newChatId: string): Promise<Destination> {
    this.logger.log(`messenger chat of ${record.walletAddress} migrated to ${newChatId}; configuration updated`);
    const destination = destinationOf({ ...record, chatId: newChatId }, this.box, this.config.MESSENGER_BOT_TOKEN);
    await this.configs.update(record.id, {
      chatId: newChatId,
      ...(record.destinationKey ? { destinationKey: destination.key } : {}),
    });
    this.metrics.count('messenger', 'migrated');
    return destination;
  }

  private async failed(
    job: Job<DeliveryJobData>,
    token: string | undefined,
    destination: Destination,
    startedAt: number,
    error: unknown,
  ): Promise<string> {
    const failure =
      error instanceof DeliveryError
        ? error
        : new DeliveryError('transient', error instanceof Error ? error.message : String(error));
    const data = job.data;
    if (data.firstAttemptAt === undefined) await job.updateData({ ...data, firstAttemptAt: startedAt });
    if (failure.kind === 'rate-limited') {
      const ms = failure.extra.retryAfterMs ?? 1000;
      await this.lanes.hold(destination.paces.slice(0, 1), ms);
      this.metrics.count(data.channel, 'rate_limited');
      return this.delay(job, token, ms);
    }
    if (failure.kind === 'blocked') {
      await this.configs.update(data.configId, { enabled: false, disabledReason: 'bot blocked by the chat (403)' });
      return this.deadLetter(job, startedAt, `${failure.message}; ${BLOCKED_NOTE}`, destination.masked);
    }
    if (failure.kind === 'permanent' || job.attemptsMade + 1 >= DELIVERY_ATTEMPTS) {
      return this.deadLetter(job, startedAt, failure.message, destination.masked);
    }
    this.metrics.count(data.channel, 'retried');
    this.logger.warn(`delivery ${job.id} (${data.channel}) attempt ${job.attemptsMade + 1} failed: ${failure.message}`);
    throw failure;
  }

  private async deadLetter(
    job: Job<DeliveryJobData>,
    startedAt: number,
    reason: string,
    destination: string,
  ): Promise<never> {
    const data = job.data;
    const now = new Date();
    const subject = subjectOf(data);
    await this.dlq.put({
      id: job.id as string,
      alertId: subject.id,
      walletAddress: subject.walletAddress,
      channel: data.channel,
      destination,
      attempts: job.attemptsMade + 1,
      lastError: reason,
      firstAttemptAt: new Date(data.firstAttemptAt ?? startedAt),
      failedAt: now,
      expiresAt: new Date(now.getTime() + DLQ_RETENTION_MS),
      job: data,
    });
    await this.lanes.leave(data.lane, job.id as string);
    this.history.recordDelivery(data, 'failed', reason);
    this.metrics.count(data.channel, 'dead_lettered');
    this.logger.warn(`delivery ${job.id} (${data.channel}) dead-lettered: ${reason}`);
    throw new UnrecoverableError(reason);
  }

  private maskedOf(record: ChannelConfigRecord): string {
    try {
      return destinationOf(record, this.box, this.config.MESSENGER_BOT_TOKEN).masked;
    } catch {
      return record.channel;
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
