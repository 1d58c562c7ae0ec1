/** Delivery channels: messenger = Telegram, channelhook = Discord/Slack incoming webhook, email = SMTP. */
export const CHANNELS = ['messenger', 'channelhook', 'email'] as const;
export type Channel = (typeof CHANNELS)[number];

export function isChannel(value: unknown): value is Channel {
  return typeof value === 'string' && (CHANNELS as readonly string[]).includes(value);
}
