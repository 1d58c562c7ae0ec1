import { createHash } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { type AccountEventAnswer, type AccountEventRequest, CHANNELS, type Channel } from '@rp/contracts';
import { RedisClient } from '@rp/platform';
import { AlertIntake } from '../alerts/alert-intake.service';
import { NotificationsSettings } from '../settings/notifications-settings';
import { NotificationConfigRepository } from '../channel-configs/notification-config.repository';
import { HistoryRecorder } from '../history/history-recorder';
import { EVENT_LEVEL, UNHELD_EVENTS, noticeOf } from './account-event-notice';

/** An event id is taken once within this window (the agent's outbox resends until it is answered). */
export const EVENT_DEDUPE_SECONDS = 7 * 24 * 60 * 60;

const digest = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32);

/**
 * Takes an account's event for one of its wallets into the delivery pipeline: to the account's own enabled channel
 * configurations of that wallet only (never another account's), through the cooldown of the event's type (closes
 * are never held back), as delivery jobs of the same queue as risk alerts (retries, pacing, DLQ). The same event id
 * from the same account is taken once: its delivery id and job ids are derived from it, and it is remembered for
 * seven days once queued.
 */
@Injectable()
export class AccountEventsService {
  private readonly logger = new Logger(AccountEventsService.name);

  constructor(
    private readonly configs: NotificationConfigRepository,
    private readonly intake: AlertIntake,
    private readonly redis: RedisClient,
    private readonly config: NotificationsSettings,
    private readonly history: HistoryRecorder,
  ) {}

  async take(account: string, event: AccountEventRequest): Promise<AccountEventAnswer> {
    const accountKey = digest(account);
    const seen = `${this.config.keyPrefix()}account-event:${accountKey}:${event.eventId}`;
    if ((await this.redis.exists(seen)) === 1) {
      return { success: true, eventId: event.eventId, queued: [], suppressed: [], duplicate: true };
    }
    await this.history.recordAction(account, event);
    const deliveryId = `event-${digest(account, event.eventId)}`;
    const enabled = (await this.configs.forAccount(account, event.walletAddress)).filter((config) => config.enabled);
    const channels = channelsOf(enabled.map((config) => config.channel));
    let passes = false;
    if (enabled.length > 0) {
      const key = `events:${accountKey}:${event.type}`;
      const unheld = UNHELD_EVENTS.has(event.type);
      passes = await this.intake.cooldownPasses(event.walletAddress, key, EVENT_LEVEL[event.type], unheld, deliveryId);
      if (passes) await this.intake.queue(deliveryId, enabled, { event: noticeOf(event, deliveryId), source: 'agent' });
    }
    // Remembered once queued, not before: a caller whose request died with this process sends it again and it is
    // taken in (the same job ids are refused by the queue while the first ones live).
    await this.redis.set(seen, '1', 'EX', EVENT_DEDUPE_SECONDS);
    this.logger.debug(`event ${event.type} of ${event.walletAddress}: ${passes ? 'queued' : 'held'} (${channels.length})`);
    return {
      success: true,
      eventId: event.eventId,
      queued: passes ? channels : [],
      suppressed: passes ? [] : channels,
    };
  }
}

function channelsOf(channels: Channel[]): Channel[] {
  const set = new Set(channels);
  return CHANNELS.filter((channel) => set.has(channel));
}
