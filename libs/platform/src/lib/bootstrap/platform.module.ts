import { DynamicModule, Global, Module, Type } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import { Registry } from 'prom-client';
import { AppConfig } from '../config/app-config';
import { secretValuesOf } from '../config/load-config';
import { ErrorEnvelopeFilter } from '../errors/error-envelope.filter';
import { createValidationPipe } from '../errors/validation';
import { HealthController } from '../health/health.controller';
import { READINESS_CHECKS, ReadinessCheck } from '../health/readiness-check';
import { HttpClient } from '../http/http-client';
import { createHttpLogger } from '../logging/logger-options';
import { HttpMetrics } from '../metrics/http-metrics';
import { MetricsController } from '../metrics/metrics.controller';
import { createMetricsRegistry } from '../metrics/metrics-registry';
import { OpenApiInfo } from '../openapi/openapi-document';
import { OPENAPI_INFO, OpenApiController, OpenApiPublisher } from '../openapi/openapi.controller';

export const APP_NAME = Symbol('rp:app-name');
export const HTTP_LOGGER = Symbol('rp:http-logger');

export interface PlatformOptions<C extends AppConfig> {
  appName: string;
  config: C;
  /** The app's own module tree. */
  imports: DynamicModule[];
  /** Classes provided by the imports (or by global modules) that `/health/ready` must see answer. */
  readiness: Type<ReadinessCheck>[];
  /** Where log lines go (tests capture them); stdout by default. */
  logDestination?: NodeJS.WritableStream;
  /** Serve `GET /openapi.json` with this title and description. */
  openApi?: OpenApiInfo;
}

/**
 * What every app has: its validated config (injectable by its class and as `AppConfig`), logging, the error
 * envelope, validation, health and metrics, and an outgoing HTTP client.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot<C extends AppConfig>(options: PlatformOptions<C>): DynamicModule {
    const configClass = options.config.constructor as Type<C>;
    const httpLogger = createHttpLogger({
      appName: options.appName,
      level: options.config.LOG_LEVEL,
      secrets: secretValuesOf(options.config),
      destination: options.logDestination,
    });
    return {
      module: PlatformModule,
      imports: [
        // createApp mounts the HTTP logger ahead of everything; this binds the same pino instance to Nest's Logger.
        LoggerModule.forRoot({ useExisting: true, pinoHttp: { logger: httpLogger.logger } }),
        TerminusModule.forRoot({ logger: false }),
        ...options.imports,
      ],
      controllers: [HealthController, MetricsController, ...(options.openApi ? [OpenApiController] : [])],
      providers: [
        { provide: APP_NAME, useValue: options.appName },
        { provide: HTTP_LOGGER, useValue: httpLogger },
        { provide: configClass, useValue: options.config },
        ...(configClass === AppConfig ? [] : [{ provide: AppConfig, useValue: options.config }]),
        { provide: Registry, useFactory: () => createMetricsRegistry(options.appName) },
        { provide: READINESS_CHECKS, useFactory: (...checks: ReadinessCheck[]) => checks, inject: options.readiness },
        { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        HttpMetrics,
        HttpClient,
        ...(options.openApi ? [{ provide: OPENAPI_INFO, useValue: options.openApi }, OpenApiPublisher] : []),
      ],
      exports: [APP_NAME, HTTP_LOGGER, configClass, AppConfig, Registry, HttpMetrics, HttpClient],
    };
  }
}
