import { MessageLog, type Channel, type LogEntry } from './message-log';
import { SmtpSink } from './smtp-sink';
import { TelegramBotApi } from './telegram-bot-api';
import { WebhookReceiver, type HookKind, type RateLimitRule } from './webhook-receiver';

export { MessageLog, matches } from './message-log';
export type { Channel, LogEntry, LogFilter, MessageLogOptions, NewLogEntry, Outcome } from './message-log';
export { TelegramBotApi } from './telegram-bot-api';
export type { ChatId, TelegramBotApiOptions } from './telegram-bot-api';
export { EntityParseError, parseFormatted } from './telegram-format';
export type { FormattedText, MessageEntity } from './telegram-format';
export { WebhookReceiver, hookKind, normalizeHookPath } from './webhook-receiver';
export type { HookKind, RateLimitRule, WebhookReceiverOptions } from './webhook-receiver';
export { SmtpSink } from './smtp-sink';
export type { EmailPayload, SmtpFault, SmtpFaultCode, SmtpSinkOptions, SmtpStage } from './smtp-sink';

export interface ChannelStandInsOptions {
  now?: () => number;
  logCapacity?: number;
  telegramMinIntervalMs?: number;
  webhookRateLimits?: Partial<Record<HookKind, RateLimitRule | null>>;
  maxEmailBytes?: number;
}

export interface ChannelSnapshot {
  /** Retained entries per channel (the log keeps the most recent ones only). */
  counts: Record<Channel, number>;
  rejected: number;
  /** Newest first. */
  latest: LogEntry[];
}

/**
 * The three channel stand-ins sharing one log. The sandbox server mounts `telegram.handle` under `/telegram`,
 * `webhooks.handle` under `/hooks/`, and calls `smtp.start(2525)`.
 */
export class ChannelStandIns {
  readonly log: MessageLog;
  readonly telegram: TelegramBotApi;
  readonly webhooks: WebhookReceiver;
  readonly smtp: SmtpSink;

  constructor(options: ChannelStandInsOptions = {}) {
    this.log = new MessageLog({ capacity: options.logCapacity, now: options.now });
    this.telegram = new TelegramBotApi({
      log: this.log,
      now: options.now,
      minIntervalMs: options.telegramMinIntervalMs,
    });
    this.webhooks = new WebhookReceiver({ log: this.log, now: options.now, rateLimits: options.webhookRateLimits });
    this.smtp = new SmtpSink({ log: this.log, maxMessageBytes: options.maxEmailBytes });
  }

  /** Clears the log and every injected fault and rate-limit state; the SMTP server keeps running. */
  reset(): void {
    this.log.clear();
    this.telegram.reset();
    this.webhooks.reset();
    this.smtp.reset();
  }

  snapshot(latest = 100): ChannelSnapshot {
    const counts: Record<Channel, number> = { telegram: 0, webhook: 0, email: 0 };
    let rejected = 0;
    for (const entry of this.log.list()) {
      counts[entry.channel] += 1;
      if (entry.outcome === 'rejected') rejected += 1;
    }
    return { counts, rejected, latest: this.log.latest(latest) };
  }
}
