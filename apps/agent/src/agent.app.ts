import { DatabaseReadiness, PersistenceModule } from '@rp/persistence';
import { AppDefinition, RedisModule, RedisReadiness } from '@rp/platform';
import { AgentConfig } from './config/agent.config';

/** Redis is optional for the agent: with `REDIS_*` set it is used and must answer; without, the database is enough. */
export const agentApp: AppDefinition<AgentConfig> = {
  name: 'agent',
  config: AgentConfig,
  modules: (config) => {
    const redis = config.configuredRedis();
    return [
      PersistenceModule.forRoot({ appName: 'agent', url: config.databaseUrl() }),
      ...(redis ? [RedisModule.forRoot(redis, 'agent')] : []),
    ];
  },
  readiness: (config) => (config.configuredRedis() ? [DatabaseReadiness, RedisReadiness] : [DatabaseReadiness]),
};
