import { Module } from '@nestjs/common';
import { RedisClient } from '@rp/platform';
import { ChannelConfigsModule } from '../channel-configs/channel-configs.module';
import { HistoryModule } from '../history/history.module';
import { ChannelProviders } from './channels/channel-providers';
import { DeadLetterRepository } from './dead-letter.repository';
import { DeliveryMetrics } from './delivery-metrics';
import { DeliveryQueue } from './delivery-queue';
import { DeliverySteps } from './delivery-steps';
import { DeliveryProcessor } from './delivery.processor';
import { FanOutProcessor } from './fan-out.processor';
import { DeliveryWorker } from './delivery.worker';
import { DestinationLanes } from './destination-lanes';
import { NotificationsSettings } from '../settings/notifications-settings';

/**
 * Delivery: the queue producer (every role: metrics and the intake need it), the channel providers, the DLQ's
 * storage and (role `worker`) the BullMQ worker.
 */
@Module({
  imports: [ChannelConfigsModule, HistoryModule],
  providers: [
    {
      provide: DestinationLanes,
      useFactory: (redis: RedisClient, s: NotificationsSettings) => new DestinationLanes(redis, s.keyPrefix()),
      inject: [RedisClient, NotificationsSettings],
    },
    DeliveryQueue,
    DeadLetterRepository,
    DeliveryMetrics,
    ChannelProviders,
    DeliverySteps,
    DeliveryProcessor,
    FanOutProcessor,
    DeliveryWorker,
  ],
  exports: [DestinationLanes, DeliveryQueue, DeadLetterRepository, DeliveryMetrics],
})
export class DeliveryModule {}
