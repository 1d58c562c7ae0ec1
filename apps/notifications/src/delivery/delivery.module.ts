import { Module } from '@nestjs/common';
import { ChannelConfigsModule } from '../channel-configs/channel-configs.module';
import { ChannelProviders } from './channels/channel-providers';
import { DeadLetterRepository } from './dead-letter.repository';
import { DeliveryMetrics } from './delivery-metrics';
import { DeliveryQueue } from './delivery-queue';
import { DeliveryProcessor } from './delivery.processor';
import { DeliveryWorker } from './delivery.worker';

/**
 * Delivery: the queue producer (every role: metrics and the intake need it), the channel providers, the DLQ's
 * storage and (role `worker`) the BullMQ worker.
 */
@Module({
  imports: [ChannelConfigsModule],
  providers: [DeliveryQueue, DeadLetterRepository, DeliveryMetrics, ChannelProviders, DeliveryProcessor, DeliveryWorker],
  exports: [DeliveryQueue, DeadLetterRepository, DeliveryMetrics],
})
export class DeliveryModule {}
