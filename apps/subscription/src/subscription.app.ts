import { DatabaseReadiness, PersistenceModule } from '@rp/persistence';
import { AppDefinition, RedisModule, RedisReadiness } from '@rp/platform';
import { SubscriptionConfig } from './config/subscription.config';

export const subscriptionApp: AppDefinition<SubscriptionConfig> = {
  name: 'subscription',
  config: SubscriptionConfig,
  modules: (config) => [
    RedisModule.forRoot(config.redis(), 'subscription'),
    PersistenceModule.forRoot({ appName: 'subscription', url: config.databaseUrl() }),
  ],
  readiness: () => [DatabaseReadiness, RedisReadiness],
};
