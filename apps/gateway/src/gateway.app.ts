import { DynamicModule, Module } from '@nestjs/common';
import { APP_LOGGER, AppDefinition, HttpMetrics } from '@rp/platform';
import { Registry } from 'prom-client';
import { AccessControl } from './access/access-control';
import { KeyIntrospectionClient } from './auth/key-introspection.client';
import { GatewayConfig } from './config/gateway.config';
import { DocsModule } from './docs/docs.module';
import { RateLimitRedisShutdown, createRateLimitRedis, settled } from './rate-limit/rate-limit-redis';
import { RATE_LIMIT_OPTIONS, RATE_LIMIT_REDIS, RateLimiter } from './rate-limit/rate-limiter';
import { FastPath } from './routing/fast-path';
import { registerForwarding } from './routing/forwarding-routes';
import { ServiceProxy } from './routing/service-proxy';
import { serviceRoutes } from './routing/service-routes';

/** How long boot waits for the rate limiter's Redis before it starts on the in-process fallback. */
const REDIS_BOOT_WAIT_MS = 1000;

@Module({})
class EdgeModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: EdgeModule,
      providers: [
        {
          provide: RATE_LIMIT_REDIS,
          useFactory: async () => {
            const redis = createRateLimitRedis(config.redis(), config.RATE_LIMIT_REDIS_TIMEOUT_MS);
            await settled(redis, REDIS_BOOT_WAIT_MS);
            return redis;
          },
        },
        { provide: RATE_LIMIT_OPTIONS, useValue: { maxLease: config.RATE_LIMIT_LEASE } },
        RateLimiter,
        RateLimitRedisShutdown,
        KeyIntrospectionClient,
        AccessControl,
        ServiceProxy,
      ],
    };
  }
}

export const gatewayApp: AppDefinition<GatewayConfig> = {
  name: 'gateway',
  config: GatewayConfig,
  modules: (config) => [EdgeModule.forRoot(config), { module: DocsModule }],
  // Nothing to wait for: without Redis the gateway limits in process, and a service that is down is its 503.
  readiness: () => [],
  // The gateway signs the internal headers; it has no one to check them from.
  internalAuth: false,
  requestContext: false,
  // The client address is the socket's, or what the proxies TRUST_PROXY counts say it is.
  trustedProxies: (config) => config.TRUST_PROXY,
  // Access control and the streaming proxy on /api/v1, outside Nest's router: forwarded bodies are never parsed.
  configureHttp: async (http, app) => {
    const config = app.get(GatewayConfig);
    await registerForwarding(http, serviceRoutes(config), app.get(ServiceProxy), app.get(AccessControl));
    if (!config.FORWARD_FAST_PATH) return;
    new FastPath({
      proxy: app.get(ServiceProxy),
      access: app.get(AccessControl),
      metrics: app.get(HttpMetrics),
      registry: app.get(Registry),
      logger: app.get(APP_LOGGER),
      trustedProxies: config.TRUST_PROXY,
    }).install(http);
  },
};
