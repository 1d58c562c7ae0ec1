import { type DynamicModule, Module } from '@nestjs/common';
import { AccountEventsController } from './account-events/account-events.controller';
import { AccountEventsService } from './account-events/account-events.service';
import { AlertIntake } from './alerts/alert-intake.service';
import { TestMessageController } from './alerts/test-message.controller';
import { AdminKeyGuard, WebhookSecretGuard } from './admin/secret-guards';
import { ChannelProviders } from './channels/channel-providers';
import { WebhookUrlPolicy } from './channels/webhook-url';
import { NotificationsSettings } from './settings/notifications-settings';
import { ConfigAccountMigration } from './channel-configs/config-account-migration';
import { ConfigsController } from './channel-configs/configs.controller';
import { ConfigsService } from './channel-configs/configs.service';
import { NotificationConfigRepository } from './channel-configs/notification-config.repository';
import { SecretBox } from './channel-configs/secret-box';
import { DeliveryMetrics } from './delivery/delivery-metrics';
import { DeliveryQueue } from './delivery/delivery-queue';
import { DeliveryProcessor } from './delivery/delivery.processor';
import { DeliveryWorker } from './delivery/delivery.worker';
import { DeadLetterRepository } from './dlq/dead-letter.repository';
import { DlqController } from './dlq/dlq.controller';
import { DlqService } from './dlq/dlq.service';
import { WebhookController } from './webhook/webhook.controller';

/** Channel configurations: the repository (the monitor's watch list), secrets at rest, the webhook URL policy. */
@Module({
  providers: [
    NotificationConfigRepository,
    {
      provide: SecretBox,
      useFactory: (c: NotificationsSettings) => new SecretBox(c.NOTIFICATIONS_ENCRYPTION_KEY),
      inject: [NotificationsSettings],
    },
    {
      provide: WebhookUrlPolicy,
      useFactory: (c: NotificationsSettings) => new WebhookUrlPolicy(c.NOTIFICATIONS_WEBHOOK_HOSTS),
      inject: [NotificationsSettings],
    },
    ConfigsService,
    ConfigAccountMigration,
    AdminKeyGuard,
    WebhookSecretGuard,
  ],
  exports: [
    ConfigAccountMigration,
    NotificationConfigRepository,
    SecretBox,
    WebhookUrlPolicy,
    ConfigsService,
    AdminKeyGuard,
    WebhookSecretGuard,
  ],
})
export class ConfigsModule {}

/** The delivery queue, the DLQ, providers and (role `worker`) the BullMQ worker. */
@Module({
  imports: [ConfigsModule],
  providers: [
    DeliveryQueue,
    DeadLetterRepository,
    DeliveryMetrics,
    ChannelProviders,
    DeliveryProcessor,
    DeliveryWorker,
    DlqService,
  ],
  exports: [DeliveryQueue, DeadLetterRepository, DeliveryMetrics, DlqService],
})
export class DeliveryModule {}

/** `AlertIntake`: every alert source (monitor, webhook, trigger, test) goes through it. */
@Module({ imports: [ConfigsModule, DeliveryModule], providers: [AlertIntake], exports: [AlertIntake, ConfigsModule] })
export class AlertsModule {}

/** Role `api`: registration, test message, webhook, account events and DLQ routes. */
@Module({
  imports: [ConfigsModule, DeliveryModule, AlertsModule],
  controllers: [ConfigsController, TestMessageController, WebhookController, DlqController, AccountEventsController],
  providers: [AccountEventsService],
})
export class NotificationRoutesModule {}

/**
 * The delivery half by role (`NOTIFICATIONS_ROLE`): every role has the queue producer (so metrics and the
 * intake work); the worker starts only with `worker`/`all`; routes only with `api`/`all`.
 */
@Module({})
export class NotificationsModule {
  static forRole(config: NotificationsSettings): DynamicModule {
    return {
      module: NotificationsModule,
      imports: [ConfigsModule, DeliveryModule, AlertsModule, ...(config.runs('api') ? [NotificationRoutesModule] : [])],
      exports: [ConfigsModule, DeliveryModule, AlertsModule],
    };
  }
}

export function deliveryModules(config: NotificationsSettings): DynamicModule[] {
  return [NotificationsModule.forRole(config)];
}
