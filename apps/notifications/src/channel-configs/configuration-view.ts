import { CHANNELS, type CallerIdentity, type Channel, type RiskLevel } from '@rp/contracts';
import { maskBotToken, maskWebhookUrl } from './masking';
import type { ChannelConfigRecord } from './notification-config';
import type { SecretBox } from './secret-box';

/**
 * What the caller's data belongs to: the account the gateway signed for its key (the paying wallet, or the partner
 * the operator named; ADR 015), never the email a buyer typed. Every account-scoped route compares on this alone.
 */
export function accountOf(caller: CallerIdentity): string {
  return caller.account;
}

export interface ChannelView {
  enabled: boolean;
  minRiskLevel: RiskLevel;
  messengerChatId?: string;
  messengerBotToken?: string | null;
  channelWebhook?: string;
  email?: string;
  disabledReason?: string;
  updatedAt: string;
}

export interface ConfigurationView {
  success: true;
  walletAddress: string;
  enabledChannels: Channel[];
  messengerChatId?: string;
  messengerBotToken?: string | null;
  channelWebhook?: string;
  email?: string;
  channels: Partial<Record<Channel, ChannelView>>;
  timestamp: string;
}

/** The answer of registration and retrieval: spec field names, secrets masked, one entry per channel. */
export function configurationView(
  walletAddress: string,
  records: ChannelConfigRecord[],
  box: SecretBox,
): ConfigurationView {
  const channels: Partial<Record<Channel, ChannelView>> = {};
  const view: ConfigurationView = {
    success: true,
    walletAddress,
    enabledChannels: [],
    channels,
    timestamp: new Date().toISOString(),
  };
  for (const channel of CHANNELS) {
    const record = records.find((r) => r.channel === channel);
    if (!record) continue;
    const entry: ChannelView = {
      enabled: record.enabled,
      minRiskLevel: record.minRiskLevel,
      updatedAt: record.updatedAt.toISOString(),
    };
    if (record.enabled) view.enabledChannels.push(channel);
    if (channel === 'messenger') {
      entry.messengerChatId = view.messengerChatId = record.chatId;
      entry.messengerBotToken = view.messengerBotToken = record.botToken
        ? maskBotToken(box.open(record.botToken))
        : null;
    } else if (channel === 'channelhook' && record.webhookUrl) {
      entry.channelWebhook = view.channelWebhook = maskWebhookUrl(box.open(record.webhookUrl));
    } else if (channel === 'email') {
      entry.email = view.email = record.email;
    }
    if (record.disabledReason) entry.disabledReason = record.disabledReason;
    channels[channel] = entry;
  }
  return view;
}
