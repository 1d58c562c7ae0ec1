import { Module } from '@nestjs/common';
import { RedisClient, RedisLeases } from '@rp/platform';
import { ChannelConfigsModule } from '../channel-configs/channel-configs.module';
import { RiskConfigModule } from '../risk-config/risk-config.module';
import { AlertHistoryController } from './alert-history.controller';
import { AlertHistoryRepository } from './alert-history.repository';
import { HealthHistoryController } from './health-history.controller';
import { HealthHistoryRepository } from './health-history.repository';
import { HealthRollups } from './health-rollups';
import { HistoryJanitor } from './history-janitor';
import { HistoryMetrics } from './history-metrics';
import { HistoryReader } from './history-reader';
import { HistoryRecorder } from './history-recorder';

/** The history's storage and its writer: the intake, the delivery and the monitor's batches record through it. */
@Module({
  providers: [AlertHistoryRepository, HealthHistoryRepository, HistoryMetrics, HistoryRecorder],
  exports: [AlertHistoryRepository, HealthHistoryRepository, HistoryRecorder],
})
export class HistoryModule {}

/** Role `api`: `GET /api/v1/rms/alerts` and `GET /api/v1/rms/history/:walletAddress`. */
@Module({
  imports: [HistoryModule, ChannelConfigsModule, RiskConfigModule],
  controllers: [AlertHistoryController, HealthHistoryController],
  providers: [HistoryReader],
})
export class HistoryRoutesModule {}

/** Role `monitor`: the roll-up janitor. */
@Module({
  imports: [HistoryModule],
  providers: [
    HealthRollups,
    { provide: RedisLeases, useFactory: (redis: RedisClient) => new RedisLeases(redis), inject: [RedisClient] },
    HistoryJanitor,
  ],
})
export class HistoryJanitorModule {}
