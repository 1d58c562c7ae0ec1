import { type DynamicModule, Module } from '@nestjs/common';
import { DatabaseReadiness, PersistenceModule } from '@rp/persistence';
import { AppDefinition, RedisModule, RedisReadiness } from '@rp/platform';
import { AccountEventsModule } from './account-events/account-events.module';
import { AlertsModule, AlertsRoutesModule } from './alerts/alerts.module';
import { ChannelConfigsModule, ChannelConfigsRoutesModule } from './channel-configs/channel-configs.module';
import { DeliveryModule } from './delivery/delivery.module';
import { DlqModule } from './dlq/dlq.module';
import { HistoryJanitorModule, HistoryRoutesModule } from './history/history.module';
import { monitorModules } from './monitor/monitor.module';
import { registerQueueBoard } from './queues/queue-board';
import { RiskRoutesModule } from './risk/risk.module';
import { RiskConfigRoutesModule } from './risk-config/risk-config.module';
import { NotificationsSettings } from './settings/notifications-settings';
import { TriggerModule } from './trigger/trigger.module';

/** The routes (role `api`): one module per feature. */
const ROUTES = [
  ChannelConfigsRoutesModule,
  AlertsRoutesModule,
  DlqModule,
  AccountEventsModule,
  RiskRoutesModule,
  RiskConfigRoutesModule,
  TriggerModule,
  HistoryRoutesModule,
];

/** The app's features, composed by role in `forRole`. */
@Module({})
class NotificationsFeatures {}

/**
 * The features by role (`NOTIFICATIONS_ROLE`): every role has the configurations, the delivery queue's producer and
 * the intake (so metrics and the intake work); the delivery worker starts only with `worker`/`all` (it checks);
 * routes only with `api`/`all`; the monitor's parts by role. One import of each module class, so each is one
 * instance.
 */
function featureModules(config: NotificationsSettings): DynamicModule {
  return {
    module: NotificationsFeatures,
    imports: [
      ChannelConfigsModule,
      DeliveryModule,
      AlertsModule,
      ...(config.runs('api') ? ROUTES : []),
      ...monitorModules(config),
      ...(config.runs('monitor') ? [HistoryJanitorModule] : []),
    ],
  };
}

export const notificationsApp: AppDefinition<NotificationsSettings> = {
  name: 'notifications',
  config: NotificationsSettings,
  modules: (config) => [
    RedisModule.forRoot(config.redis(), 'notifications'),
    PersistenceModule.forRoot({ appName: 'notifications', url: config.databaseUrl() }),
    featureModules(config),
  ],
  readiness: () => [DatabaseReadiness, RedisReadiness],
  // bull-board for the delivery and monitor queues, admin key only (ADR 022).
  configureHttp: registerQueueBoard,
  openApi: {
    title: 'Risk and notifications',
    description: 'Risk evaluation, alert channels, webhook, DLQ.',
    tags: [{ name: 'risk', description: "A wallet's positions in the watched pools, valued now, with their risk." }],
  },
};
