import type { OwnerEventBody } from './owner-events';

/** The owner's channels as the operator set them (`NOTIFY_*`); each absent one is not registered. */
export interface OwnerChannels {
  telegramChatId?: string;
  email?: string;
  webhookUrl?: string;
}

export function hasOwnerChannels(channels: OwnerChannels): boolean {
  return Boolean(channels.telegramChatId || channels.email || channels.webhookUrl);
}

/** What the service made of a call. */
export type ServiceAnswer =
  | { kind: 'taken' }
  /** A 4xx naming what is wrong with what was sent: sending it again changes nothing. */
  | { kind: 'refused'; detail: string }
  /** 401: the key is not (or no longer) valid. */
  | { kind: 'key_refused' }
  /** No answer, 404 (the route missing), 429, 5xx: try again later. */
  | { kind: 'unavailable'; detail: string };

const ROUTES = {
  messenger: '/api/v1/rms/notifications/messenger',
  email: '/api/v1/rms/notifications/email',
  channelhook: '/api/v1/rms/notifications/channelhook',
  events: '/api/v1/rms/events',
} as const;

/**
 * The service's notification routes as the agent uses them under its own key: registering the owner's channels as
 * the wallet's configurations (the normal registration routes), and posting one event.
 */
export class OwnerNotifications {
  constructor(
    private readonly baseUrl: string,
    private readonly wallet: string,
    private readonly channels: OwnerChannels,
    private readonly timeoutMs = 10_000,
  ) {}

  /** Registers every channel set; the answers by channel (a refused one, e.g. a webhook host, does not stop the others). */
  async register(apiKey: string): Promise<{ channel: string; answer: ServiceAnswer }[]> {
    const walletAddress = this.wallet;
    const wanted: [keyof typeof ROUTES, Record<string, string>][] = [];
    if (this.channels.telegramChatId) {
      wanted.push(['messenger', { walletAddress, messengerChatId: this.channels.telegramChatId }]);
    }
    if (this.channels.email) wanted.push(['email', { walletAddress, email: this.channels.email }]);
    if (this.channels.webhookUrl) wanted.push(['channelhook', { walletAddress, channelWebhook: this.channels.webhookUrl }]);
    const answers: { channel: string; answer: ServiceAnswer }[] = [];
    for (const [channel, body] of wanted) answers.push({ channel, answer: await this.post(apiKey, ROUTES[channel], body) });
    return answers;
  }

  send(apiKey: string, event: OwnerEventBody): Promise<ServiceAnswer> {
    return this.post(apiKey, ROUTES.events, event);
  }

  private async post(apiKey: string, path: string, body: object): Promise<ServiceAnswer> {
    let answer: Response;
    try {
      answer = await fetch(`${this.baseUrl.replace(/\/$/, '')}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      return { kind: 'unavailable', detail: (error as Error).message };
    }
    const text = await answer.text().catch(() => '');
    if (answer.status >= 200 && answer.status < 300) return { kind: 'taken' };
    if (answer.status === 401) return { kind: 'key_refused' };
    // The answer's own words only (the error envelope's code and message): never the body we sent.
    let detail = `${answer.status}`;
    try {
      const envelope = JSON.parse(text) as { code?: unknown; error?: unknown };
      if (typeof envelope.code === 'string') detail += ` ${envelope.code}`;
      if (typeof envelope.error === 'string') detail += `: ${envelope.error.slice(0, 200)}`;
    } catch {
      // not JSON: the status says it
    }
    if (answer.status === 404 || answer.status === 429 || answer.status >= 500) return { kind: 'unavailable', detail };
    return { kind: 'refused', detail };
  }
}
