import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { AlertMessage } from './alert-message';
import type { Address } from '../destination';
import { EmailProvider } from './email.provider';
import { TelegramProvider } from './telegram.provider';
import { WebhookProvider } from './webhook.provider';
import { WebhookUrlPolicy } from './webhook-url';
import { NotificationsSettings } from '../../settings/notifications-settings';

/** One provider per channel (the Novu shape): `telegram`, `webhook`, `email`. */
@Injectable()
export class ChannelProviders implements OnApplicationShutdown {
  readonly telegram: TelegramProvider;
  readonly webhook: WebhookProvider;
  readonly email: EmailProvider;

  constructor(config: NotificationsSettings, policy: WebhookUrlPolicy) {
    this.telegram = new TelegramProvider(config.MESSENGER_API_URL);
    this.webhook = new WebhookProvider(policy);
    this.email = new EmailProvider({
      host: config.SMTP_HOST,
      port: config.SMTP_PORT,
      user: config.SMTP_USER,
      password: config.SMTP_PASSWORD,
      from: config.EMAIL_FROM,
    });
  }

  send(address: Address, message: AlertMessage): Promise<void> {
    switch (address.channel) {
      case 'messenger':
        return this.telegram.send(address.botToken, address.chatId, message);
      case 'channelhook':
        return this.webhook.send(address.url, message);
      case 'email':
        return this.email.send(address.email, message);
    }
  }

  onApplicationShutdown(): void {
    this.email.close();
  }
}
