import { Module } from '@nestjs/common';
import { AlertsModule } from '../../notifications.module';
import { RiskModule } from '../risk.module';
import { TriggerController } from './trigger.controller';
import { TriggerService } from './trigger.service';

/** `POST /api/v1/rms/notifications/trigger` (role `api`). */
@Module({ imports: [RiskModule, AlertsModule], controllers: [TriggerController], providers: [TriggerService] })
export class TriggerModule {}
