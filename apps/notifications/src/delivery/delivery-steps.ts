import { Injectable, Logger } from '@nestjs/common';
import { renderAccountEvent } from '../account-events/account-event-message';
import type { ChannelConfigRecord } from '../channel-configs/notification-config';
import { NotificationConfigRepository } from '../channel-configs/notification-config.repository';
import { SecretBox } from '../channel-configs/secret-box';
import { HistoryRecorder } from '../history/history-recorder';
import { NotificationsSettings } from '../settings/notifications-settings';
import { type AlertMessage, renderAlert } from './channels/alert-message';
import { DeliveryError } from './channels/delivery-error';
import { DLQ_RETENTION_MS } from './dead-letter';
import { DeadLetterRepository } from './dead-letter.repository';
import { DELIVERY_ATTEMPTS, type DeliveryContent, type DeliveryJobData, subjectOf } from './delivery-job';
import { DeliveryMetrics } from './delivery-metrics';
import { type Destination, destinationOf } from './destination';
import { DestinationLanes } from './destination-lanes';

const BLOCKED_NOTE = 'messenger disabled for this wallet (bot blocked); register the channel again to re-enable it';

/**
 * What a failed send leads to, once its side effects are done (the pacing held for a 429, a blocked bot's channel
 * disabled, the retry counted): wait `ms` without spending an attempt, the DLQ with this reason, or a retry.
 */
export type FailureStep =
  | { step: 'wait'; ms: number }
  | { step: 'dead-letter'; reason: string }
  | { step: 'retry'; failure: DeliveryError };

/** One delivery, as a failure or the DLQ sees it: its job id (lane entry), its data and the attempts spent. */
export interface DeliveryAttempt {
  jobId: string;
  data: DeliveryJobData;
  /** Attempts spent on it, the current one included. */
  attempts: number;
  startedAt: number;
}

/**
 * The steps a delivery takes whichever job carries it (its own per-channel job or its alert's fan-out job, ADR 035):
 * the message, the destination, a migration, what a failure leads to, the DLQ and a delivery's record.
 */
@Injectable()
export class DeliverySteps {
  private readonly logger = new Logger('Delivery');

  constructor(
    private readonly config: NotificationsSettings,
    private readonly configs: NotificationConfigRepository,
    private readonly box: SecretBox,
    private readonly dlq: DeadLetterRepository,
    private readonly metrics: DeliveryMetrics,
    private readonly lanes: DestinationLanes,
    private readonly history: HistoryRecorder,
  ) {}

  message(content: DeliveryContent): AlertMessage {
    return content.event ? renderAccountEvent(content.event) : renderAlert(content.alert, content.source);
  }

  /** Where a configuration sends (throws `MissingBotTokenError` when a messenger one has no bot token). */
  destination(record: ChannelConfigRecord): Destination {
    return destinationOf(record, this.box, this.config.MESSENGER_BOT_TOKEN);
  }

  masked(record: ChannelConfigRecord): string {
    try {
      return this.destination(record).masked;
    } catch {
      return record.channel;
    }
  }

  /** The messenger chat moved (a group upgraded): the configuration follows; the new destination. */
  async migrate(record: ChannelConfigRecord, newChatId: string): Promise<Destination> {
    this.logger.log(`messenger chat of ${record.walletAddress} migrated to ${newChatId}; configuration updated`);
    const destination = this.destination({ ...record, chatId: newChatId });
    await this.configs.update(record.id, {
      chatId: newChatId,
      ...(record.destinationKey ? { destinationKey: destination.key } : {}),
    });
    this.metrics.count('messenger', 'migrated');
    return destination;
  }

  /** A send failed (not a migration followed): its side effects, and what comes next. */
  async failed(attempt: DeliveryAttempt, destination: Destination, error: unknown): Promise<FailureStep> {
    const failure =
      error instanceof DeliveryError
        ? error
        : new DeliveryError('transient', error instanceof Error ? error.message : String(error));
    const { data } = attempt;
    if (failure.kind === 'rate-limited') {
      const ms = failure.extra.retryAfterMs ?? 1000;
      await this.lanes.hold(destination.paces.slice(0, 1), ms);
      this.metrics.count(data.channel, 'rate_limited');
      return { step: 'wait', ms };
    }
    if (failure.kind === 'blocked') {
      await this.configs.update(data.configId, { enabled: false, disabledReason: 'bot blocked by the chat (403)' });
      return { step: 'dead-letter', reason: `${failure.message}; ${BLOCKED_NOTE}` };
    }
    if (failure.kind === 'permanent' || attempt.attempts >= DELIVERY_ATTEMPTS) {
      return { step: 'dead-letter', reason: failure.message };
    }
    this.metrics.count(data.channel, 'retried');
    this.logger.warn(
      `delivery ${attempt.jobId} (${data.channel}) attempt ${attempt.attempts} failed: ${failure.message}`,
    );
    return { step: 'retry', failure };
  }

  /** Into the DLQ (under the delivery's job id), out of its lane, recorded as failed. */
  async deadLetter(attempt: DeliveryAttempt, reason: string, destination: string): Promise<void> {
    const { jobId, data } = attempt;
    const now = new Date();
    const subject = subjectOf(data);
    await this.dlq.put({
      id: jobId,
      alertId: subject.id,
      walletAddress: subject.walletAddress,
      channel: data.channel,
      destination,
      attempts: attempt.attempts,
      lastError: reason,
      firstAttemptAt: new Date(data.firstAttemptAt ?? attempt.startedAt),
      failedAt: now,
      expiresAt: new Date(now.getTime() + DLQ_RETENTION_MS),
      job: data,
    });
    await this.lanes.leave(data.lane, jobId);
    this.history.recordDelivery(data, 'failed', reason);
    this.metrics.count(data.channel, 'dead_lettered');
    this.logger.warn(`delivery ${jobId} (${data.channel}) dead-lettered: ${reason}`);
  }

  /** A delivery reached its destination (its lane was told already): metrics and history. */
  delivered(data: DeliveryJobData): void {
    this.metrics.delivered(data.channel, data.queuedAt);
    this.history.recordDelivery(data, 'delivered');
  }
}
