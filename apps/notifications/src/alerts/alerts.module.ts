import { Module } from '@nestjs/common';
import { ChannelConfigsModule } from '../channel-configs/channel-configs.module';
import { DeliveryModule } from '../delivery/delivery.module';
import { AlertIntake } from './alert-intake.service';
import { TestMessageController } from './test-message.controller';
import { WebhookController } from './webhook.controller';

/** `AlertIntake`: every alert source (monitor, webhook, trigger, test, account events) goes through it. */
@Module({ imports: [ChannelConfigsModule, DeliveryModule], providers: [AlertIntake], exports: [AlertIntake] })
export class AlertsModule {}

/** Role `api`: the inbound alert webhook and the test message. */
@Module({ imports: [ChannelConfigsModule, AlertsModule], controllers: [TestMessageController, WebhookController] })
export class AlertsRoutesModule {}
