import { Module } from '@nestjs/common';
import { DeliveryModule } from '../delivery/delivery.module';
import { DlqController } from './dlq.controller';
import { DlqService } from './dlq.service';

/** Role `api`: the DLQ's status and re-drives (its entries are stored by delivery). */
@Module({ imports: [DeliveryModule], controllers: [DlqController], providers: [DlqService] })
export class DlqModule {}
