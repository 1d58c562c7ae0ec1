import { Module } from '@nestjs/common';
import { AlertsModule } from '../alerts/alerts.module';
import { ChannelConfigsModule } from '../channel-configs/channel-configs.module';
import { RiskModule } from '../risk/risk.module';
import { RiskConfigModule } from '../risk-config/risk-config.module';
import { TriggerController } from './trigger.controller';
import { TriggerService } from './trigger.service';

/** `POST /api/v1/rms/notifications/trigger` (role `api`). */
@Module({
  imports: [RiskModule, ChannelConfigsModule, AlertsModule, RiskConfigModule],
  controllers: [TriggerController],
  providers: [TriggerService],
})
export class TriggerModule {}
