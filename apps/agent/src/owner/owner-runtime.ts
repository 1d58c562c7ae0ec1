import type { Logger } from 'pino';
import type { AgentConfig } from '../config/agent.config';
import type { AgentMetrics } from '../metrics/agent-metrics';
import type { AgentStore } from '../store/agent-store';
import { NO_OWNER_EVENTS, type OwnerEvents } from './owner-events';
import { type OwnerChannels, OwnerNotifications, hasOwnerChannels } from './owner-notifications';
import { OwnerOutbox } from './owner-outbox';
import { type KeySource, OwnerEventSender } from './owner-sender';

/** The owner's events of one agent: what the acting code emits to, and the sender's life. */
export interface OwnerEventsRuntime {
  readonly events: OwnerEvents;
  /** Starts sending once the agent can get keys. */
  start(keys: KeySource): void;
  stop(): Promise<void>;
}

/**
 * Picked once at start: with at least one `NOTIFY_*` channel (and a service, not the mock), an outbox in the
 * database and a sender; otherwise nothing is kept and nothing is sent.
 */
export function createOwnerEvents(
  config: AgentConfig,
  wallet: string,
  store: AgentStore,
  logger: Logger,
  metrics: AgentMetrics,
): OwnerEventsRuntime {
  const channels: OwnerChannels = {
    telegramChatId: config.NOTIFY_TELEGRAM_CHAT_ID,
    email: config.NOTIFY_EMAIL,
    webhookUrl: config.NOTIFY_WEBHOOK_URL,
  };
  if (config.SERVICE_MOCK || !hasOwnerChannels(channels)) {
    return { events: NO_OWNER_EVENTS, start: () => undefined, stop: async () => undefined };
  }
  const outbox = new OwnerOutbox(store, wallet, logger);
  const notifications = new OwnerNotifications(config.SERVICE_BASE_URL, wallet, channels);
  let sender: OwnerEventSender | undefined;
  return {
    events: outbox,
    start(keys) {
      const intervalMs = Math.min(30_000, Math.max(1000, config.POLL_INTERVAL_MS));
      sender = new OwnerEventSender(outbox, keys, notifications, logger, metrics, intervalMs);
      sender.start();
    },
    stop: async () => sender?.stop(),
  };
}
