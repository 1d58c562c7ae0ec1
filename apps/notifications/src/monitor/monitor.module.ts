import { type DynamicModule, Module } from '@nestjs/common';
import { RedisClient } from '@rp/platform';
import { NotificationsSettings } from '../settings/notifications-settings';
import { AlertsModule } from '../alerts/alerts.module';
import { ChannelConfigsModule } from '../channel-configs/channel-configs.module';
import { HistoryModule } from '../history/history.module';
import { RiskModule } from '../risk/risk.module';
import { RiskConfigModule } from '../risk-config/risk-config.module';
import { MonitorBatchEvaluator } from './batch-evaluator';
import { MonitorKeys } from './monitor-keys';
import { MonitorMetrics } from './monitor-metrics';
import { MonitorQueue } from './monitor-queue';
import { MonitorScheduler } from './monitor-scheduler';
import { MonitorWorker } from './monitor.worker';
import { PositionCache } from './position-cache';
import { RoundAuctions } from './round-auctions';
import { SchedulerLock, schedulerLock } from './scheduler-lock';

/** What the scheduler and the workers share in one process: the risk evaluation, the metrics, the keys and the cache. */
@Module({
  imports: [RiskModule],
  providers: [
    MonitorMetrics,
    {
      provide: MonitorKeys,
      useFactory: (s: NotificationsSettings) => new MonitorKeys(s.keyPrefix()),
      inject: [NotificationsSettings],
    },
    {
      provide: PositionCache,
      useFactory: (redis: RedisClient, keys: MonitorKeys) => new PositionCache(redis, keys),
      inject: [RedisClient, MonitorKeys],
    },
  ],
  exports: [RiskModule, MonitorMetrics, MonitorKeys, PositionCache],
})
export class MonitorCoreModule {}

/** Role `monitor`: the scheduler (one at a time across replicas, by a Redis lock). */
@Module({
  imports: [MonitorCoreModule, ChannelConfigsModule, AlertsModule],
  providers: [
    MonitorQueue,
    { provide: SchedulerLock, useFactory: schedulerLock, inject: [RedisClient, MonitorKeys] },
    MonitorScheduler,
    RoundAuctions,
  ],
})
export class MonitorSchedulerModule {}

/** Role `worker`: the batch jobs of every round. */
@Module({
  imports: [MonitorCoreModule, ChannelConfigsModule, AlertsModule, RiskConfigModule, HistoryModule],
  providers: [MonitorBatchEvaluator, MonitorWorker],
})
export class MonitorWorkerModule {}

/** The monitor's parts for this process's role (`NOTIFICATIONS_ROLE`). */
export function monitorModules(config: NotificationsSettings): DynamicModule[] {
  return [
    ...(config.runs('monitor') ? [{ module: MonitorSchedulerModule }] : []),
    ...(config.runs('worker') ? [{ module: MonitorWorkerModule }] : []),
  ];
}
