import { DatabaseReadiness, PersistenceModule } from '@rp/persistence';
import { AppDefinition, RedisModule, RedisReadiness } from '@rp/platform';
import { NotificationsSettings } from './settings/notifications-settings';
import { deliveryModules } from './notifications.module';
import { monitorModules } from './monitor/monitor.module';
import { RiskRoutesModule } from './risk/risk.module';
import { TriggerModule } from './risk/trigger/trigger.module';
import { registerQueueBoard } from './queues/queue-board';

export const notificationsApp: AppDefinition<NotificationsSettings> = {
  name: 'notifications',
  config: NotificationsSettings,
  modules: (config) => [
    RedisModule.forRoot(config.redis(), 'notifications'),
    PersistenceModule.forRoot({ appName: 'notifications', url: config.databaseUrl() }),
    ...deliveryModules(config),
    ...(config.runs('api') ? [{ module: RiskRoutesModule }, { module: TriggerModule }] : []),
    ...monitorModules(config),
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
