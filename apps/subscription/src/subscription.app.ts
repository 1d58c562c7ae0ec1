import { DatabaseReadiness, PersistenceModule } from '@rp/persistence';
import { AppDefinition, RedisModule, RedisReadiness } from '@rp/platform';
import { SubscriptionConfig } from './config/subscription.config';
import { SubscriptionModule } from './subscription.module';

export const subscriptionApp: AppDefinition<SubscriptionConfig> = {
  name: 'subscription',
  config: SubscriptionConfig,
  modules: (config) => [
    RedisModule.forRoot(config.redis(), 'subscription'),
    PersistenceModule.forRoot({ appName: 'subscription', url: config.databaseUrl() }),
    { module: SubscriptionModule },
  ],
  readiness: () => [DatabaseReadiness, RedisReadiness],
  openApi: { title: 'Subscription', description: 'x402 payment for API keys, key status, partner keys.' },
};
