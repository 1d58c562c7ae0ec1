import { DatabaseReadiness, PersistenceModule } from '@rp/persistence';
import { AppDefinition } from '@rp/platform';
import { SubscriptionConfig } from './config/subscription.config';
import { SubscriptionModule } from './subscription.module';

/** Keys and payments live in the database; subscription uses no Redis, so its readiness is the database's alone. */
export const subscriptionApp: AppDefinition<SubscriptionConfig> = {
  name: 'subscription',
  config: SubscriptionConfig,
  modules: (config) => [
    PersistenceModule.forRoot({ appName: 'subscription', url: config.databaseUrl() }),
    { module: SubscriptionModule },
  ],
  readiness: () => [DatabaseReadiness],
  openApi: {
    title: 'Subscription',
    description: 'x402 payment for API keys, key status, partner keys.',
    tags: [{ name: 'keys', description: 'The key a call is made with; partner keys and revocation (admin).' }],
  },
};
