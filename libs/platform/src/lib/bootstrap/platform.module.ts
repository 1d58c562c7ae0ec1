import { DynamicModule, Global, Module, Type } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import type { Logger } from 'pino';
import Redis from 'ioredis';
import { Registry } from 'prom-client';
import { AppConfig } from '../config/app-config';
import { ErrorEnvelopeFilter } from '../errors/error-envelope.filter';
import { createValidationPipe } from '../errors/validation';
import { HealthController } from '../health/health.controller';
import { READINESS_CHECKS, ReadinessCheck } from '../health/readiness-check';
import { HttpClient } from '../http/http-client';
import { HttpMetrics } from '../metrics/http-metrics';
import { MetricsController } from '../metrics/metrics.controller';
import { createMetricsRegistry } from '../metrics/metrics-registry';
import { OpenApiInfo } from '../openapi/openapi-document';
import { OPENAPI_INFO, OpenApiController, OpenApiPublisher } from '../openapi/openapi.controller';
import { MemoryNonceStore, NonceStore, RedisNonceStore, registerNonceMetrics } from '../internal-auth/nonce-store';

export const APP_NAME = Symbol('rp:app-name');
/** The app's pino logger (injectable for code that logs outside Nest's `Logger`). */
export const APP_LOGGER = Symbol('rp:app-logger');
/** Where a service remembers the nonces of the signed calls it accepted (`NonceStore`). */
export const INTERNAL_NONCES = Symbol('rp:internal-nonces');

export interface PlatformOptions<C extends AppConfig> {
  appName: string;
  config: C;
  /** The app's own module tree. */
  imports: DynamicModule[];
  /** Classes provided by the imports (or by global modules) that `/health/ready` must see answer. */
  readiness: Type<ReadinessCheck>[];
  /** The app's logger, built by `createApp` before Nest so that Nest's own boot lines go through it. */
  logger: Logger;
  /** Serve `GET /openapi.json` with this title and description. */
  openApi?: OpenApiInfo;
}

/**
 * What every app has: its validated config (injectable by its class and as `AppConfig`), logging, the error
 * envelope, validation, health and metrics, an outgoing HTTP client, and the nonce store of signed calls.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot<C extends AppConfig>(options: PlatformOptions<C>): DynamicModule {
    const configClass = options.config.constructor as Type<C>;
    return {
      module: PlatformModule,
      imports: [TerminusModule.forRoot({ logger: false }), ...options.imports],
      controllers: [HealthController, MetricsController, ...(options.openApi ? [OpenApiController] : [])],
      providers: [
        { provide: APP_NAME, useValue: options.appName },
        { provide: APP_LOGGER, useValue: options.logger },
        { provide: configClass, useValue: options.config },
        ...(configClass === AppConfig ? [] : [{ provide: AppConfig, useValue: options.config }]),
        { provide: Registry, useFactory: () => createMetricsRegistry(options.appName) },
        { provide: READINESS_CHECKS, useFactory: (...checks: ReadinessCheck[]) => checks, inject: options.readiness },
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        {
          // In Redis when the app has it (every replica sees every nonce), else in process.
          provide: INTERNAL_NONCES,
          useFactory: (registry: Registry, redis?: Redis): NonceStore => {
            const store = redis ? new RedisNonceStore(redis, `nonce:${options.appName}:`) : new MemoryNonceStore();
            registerNonceMetrics(registry, store instanceof RedisNonceStore ? store.fallback : store);
            return store;
          },
          inject: [Registry, { token: Redis, optional: true }],
        },
        HttpMetrics,
        HttpClient,
        ...(options.openApi ? [{ provide: OPENAPI_INFO, useValue: options.openApi }, OpenApiPublisher] : []),
      ],
      exports: [APP_NAME, APP_LOGGER, configClass, AppConfig, Registry, HttpMetrics, HttpClient],
    };
  }
}
