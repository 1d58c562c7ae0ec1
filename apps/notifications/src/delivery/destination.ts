import { createHash } from 'node:crypto';
import type { Channel } from '@rp/contracts';
import type { ChannelConfigRecord } from '../channel-configs/notification-config';
import { maskBotToken, maskEmail, maskWebhookUrl } from '../channel-configs/masking';
import type { SecretBox } from '../channel-configs/secret-box';

/** Pacing per destination (DOMAIN.md, Delivery providers), a little slower than the provider allows. */
export const PACE_MS = {
  telegramChat: 1050,
  telegramGroup: 3050,
  telegramBot: 34,
  webhook: 1050,
} as const;

export interface Pace {
  key: string;
  intervalMs: number;
}

export type Address =
  | { channel: 'messenger'; botToken: string; chatId: string }
  | { channel: 'channelhook'; url: string }
  | { channel: 'email'; email: string };

/** Where one channel configuration sends: the address in clear (memory only), its key, pacing and masked form. */
export interface Destination {
  channel: Channel;
  /** Stable, secret-free key: ordering and pacing per destination. */
  key: string;
  masked: string;
  paces: Pace[];
  address: Address;
}

const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 24);

export class MissingBotTokenError extends Error {}

/** The secret-free key of an address in clear: ordering (lane) and pacing per destination. */
export function destinationKeyOf(address: Address): string {
  switch (address.channel) {
    case 'messenger':
      return `tg:${address.botToken.split(':')[0]}:${address.chatId}`;
    case 'channelhook':
      return `hook:${digest(address.url)}`;
    case 'email':
      return `mail:${digest(address.email)}`;
  }
}

export function destinationOf(
  config: ChannelConfigRecord,
  box: SecretBox,
  defaultBotToken: string | undefined,
): Destination {
  if (config.channel === 'messenger') {
    const botToken = config.botToken ? box.open(config.botToken) : defaultBotToken;
    if (!botToken)
      throw new MissingBotTokenError('no bot token: the configuration has none and MESSENGER_BOT_TOKEN is unset');
    const chatId = config.chatId ?? '';
    const botId = botToken.split(':')[0];
    const group = chatId.startsWith('-');
    const address: Address = { channel: 'messenger', botToken, chatId };
    const key = destinationKeyOf(address);
    return {
      channel: 'messenger',
      key,
      masked: `chat ${chatId} via bot ${maskBotToken(botToken)}`,
      paces: [
        { key, intervalMs: group ? PACE_MS.telegramGroup : PACE_MS.telegramChat },
        { key: `tgbot:${botId}`, intervalMs: PACE_MS.telegramBot },
      ],
      address,
    };
  }
  if (config.channel === 'channelhook') {
    const url = box.open(config.webhookUrl ?? '');
    const address: Address = { channel: 'channelhook', url };
    const key = destinationKeyOf(address);
    return {
      channel: 'channelhook',
      key,
      masked: maskWebhookUrl(url),
      paces: [{ key, intervalMs: PACE_MS.webhook }],
      address,
    };
  }
  const email = (config.email ?? '').toLowerCase();
  const address: Address = { channel: 'email', email };
  return { channel: 'email', key: destinationKeyOf(address), masked: maskEmail(email), paces: [], address };
}

/**
 * The lane (ordering key) of a configuration's deliveries: its stored `destinationKey` when it has a secret (nothing
 * opened), else computed; a configuration that cannot send gets a lane of its own.
 */
export function laneOf(config: ChannelConfigRecord, box: SecretBox, defaultBotToken: string | undefined): string {
  if (config.destinationKey) return config.destinationKey;
  try {
    return destinationOf(config, box, defaultBotToken).key;
  } catch {
    return `config:${config.id}`;
  }
}
