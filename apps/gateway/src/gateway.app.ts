import { Module } from '@nestjs/common';
import { AppDefinition, RedisModule, RedisReadiness } from '@rp/platform';
import { GatewayConfig } from './config/gateway.config';
import { ServiceProxy } from './routing/service-proxy';

@Module({ providers: [ServiceProxy] })
class RoutingModule {}

export const gatewayApp: AppDefinition<GatewayConfig> = {
  name: 'gateway',
  config: GatewayConfig,
  modules: (config) => [RedisModule.forRoot(config.redis(), 'gateway'), { module: RoutingModule }],
  readiness: () => [RedisReadiness],
  // Proxied bodies stream through untouched, so the proxy sits ahead of the JSON parser.
  beforeBodyParsers: (app) => app.use(app.get(ServiceProxy).middleware()),
};
