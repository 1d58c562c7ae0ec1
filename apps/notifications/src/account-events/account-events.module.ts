import { Module } from '@nestjs/common';
import { AlertsModule } from '../alerts/alerts.module';
import { ChannelConfigsModule } from '../channel-configs/channel-configs.module';
import { HistoryModule } from '../history/history.module';
import { AccountEventsController } from './account-events.controller';
import { AccountEventsService } from './account-events.service';

/** Role `api`: `POST /api/v1/rms/events`, an account's events to its own channels. */
@Module({
  imports: [ChannelConfigsModule, AlertsModule, HistoryModule],
  controllers: [AccountEventsController],
  providers: [AccountEventsService],
})
export class AccountEventsModule {}
