import { Module } from '@nestjs/common';
import { RedisClient } from '@rp/platform';
import { ChannelConfigsModule } from '../channel-configs/channel-configs.module';
import { DeliveryModule } from '../delivery/delivery.module';
import { HistoryModule } from '../history/history.module';
import { NotificationsSettings } from '../settings/notifications-settings';
import { AlertIntake } from './alert-intake.service';
import { AlertCooldown } from './cooldown';
import { IntakeBatcher } from './intake-batcher';
import { TestMessageController } from './test-message.controller';
import { WebhookController } from './webhook.controller';

/** `AlertIntake`: every alert source (monitor, webhook, trigger, test, account events) goes through it. */
@Module({
  imports: [ChannelConfigsModule, DeliveryModule, HistoryModule],
  providers: [
    {
      provide: AlertCooldown,
      useFactory: (redis: RedisClient, s: NotificationsSettings) => new AlertCooldown(redis, s.keyPrefix()),
      inject: [RedisClient, NotificationsSettings],
    },
    AlertIntake,
  ],
  exports: [AlertIntake],
})
export class AlertsModule {}

/** Role `api`: the inbound alert webhook and the test message. */
@Module({
  imports: [ChannelConfigsModule, AlertsModule],
  providers: [IntakeBatcher],
  controllers: [TestMessageController, WebhookController],
})
export class AlertsRoutesModule {}
