import { Module } from '@nestjs/common';
import { WebhookUrlPolicy } from '../delivery/channels/webhook-url';
import { NotificationsSettings } from '../settings/notifications-settings';
import { ConfigAccountMigration } from './config-account-migration';
import { ConfigsController } from './configs.controller';
import { ConfigsService } from './configs.service';
import { NotificationConfigRepository } from './notification-config.repository';
import { SecretBox } from './secret-box';

/** The users' channel configurations: the repository (the monitor's watch list), secrets at rest, the webhook URL policy. */
@Module({
  providers: [
    NotificationConfigRepository,
    {
      provide: SecretBox,
      useFactory: (s: NotificationsSettings) => new SecretBox(s.NOTIFICATIONS_ENCRYPTION_KEY),
      inject: [NotificationsSettings],
    },
    {
      provide: WebhookUrlPolicy,
      useFactory: (s: NotificationsSettings) => new WebhookUrlPolicy(s.NOTIFICATIONS_WEBHOOK_HOSTS),
      inject: [NotificationsSettings],
    },
    ConfigsService,
    ConfigAccountMigration,
  ],
  exports: [NotificationConfigRepository, SecretBox, WebhookUrlPolicy, ConfigsService],
})
export class ChannelConfigsModule {}

/** Role `api`: registration, retrieval and removal of a wallet's channels. */
@Module({ imports: [ChannelConfigsModule], controllers: [ConfigsController] })
export class ChannelConfigsRoutesModule {}
