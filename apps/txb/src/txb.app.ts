import { AppDefinition, RedisModule, RedisReadiness } from '@rp/platform';
import { TxbConfig } from './config/txb.config';
import { TxbModule } from './txb.module';

/** Proposals live in Redis (every replica sees them), so txb has no database of its own. */
export const txbApp: AppDefinition<TxbConfig> = {
  name: 'txb',
  config: TxbConfig,
  modules: (config) => [RedisModule.forRoot(config.redis(), 'txb'), { module: TxbModule }],
  readiness: () => [RedisReadiness],
  openApi: { title: 'Transaction builder', description: 'Blend positions, REPAY / LIQUIDATE / UNWIND, submit, track.' },
};
