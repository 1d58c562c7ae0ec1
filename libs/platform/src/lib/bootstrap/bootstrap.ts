import 'reflect-metadata';
import type { Server } from 'node:http';
import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import type { HttpLogger } from 'pino-http';
import { AppConfig, ServiceConfig } from '../config/app-config';
import { ConfigError, describeConfig, loadConfig } from '../config/load-config';
import { expressErrorHandler } from '../errors/error-envelope.filter';
import { internalAuthMiddleware } from '../internal-auth/internal-auth.middleware';
import { assignRequestId, enterRequestContext } from '../logging/request-context';
import { HttpMetrics } from '../metrics/http-metrics';
import { OpenApiPublisher } from '../openapi/openapi.controller';
import { AppDefinition } from './app-definition';
import { HTTP_LOGGER, PlatformModule } from './platform.module';

/** Exit status for a bad setting (sysexits EX_CONFIG): supervisors can tell it from a crash. */
export const EXIT_CONFIG = 78;

/** How long an app keeps an idle keep-alive connection open. */
export const IDLE_CONNECTION_TIMEOUT_MS = 65_000;

export interface CreateAppOptions {
  /** Where log lines go; tests pass a stream to read them. */
  logDestination?: NodeJS.WritableStream;
}

/** Builds the app with every platform layer in place, without listening. Tests call this directly. */
export async function createApp<C extends AppConfig>(
  definition: AppDefinition<C>,
  config: C,
  options: CreateAppOptions = {},
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    PlatformModule.forRoot({
      appName: definition.name,
      config,
      imports: definition.modules(config),
      readiness: definition.readiness(config),
      logDestination: options.logDestination,
      openApi: definition.openApi,
    }),
    { bufferLogs: true, bodyParser: false, abortOnError: false },
  );
  app.useLogger(app.get(Logger));
  // The document is built on its first request, once every route is registered.
  if (definition.openApi) app.get(OpenApiPublisher).attach(app);
  app.flushLogs();
  app.disable('x-powered-by');
  // Order matters: id first (every answer carries it), then the access log and metrics (they see every request,
  // including proxied ones and parser failures), then the gateway's signature check (before any body is read),
  // then the proxy (bodies stream through untouched), then parsing.
  const httpLogger = app.get<HttpLogger>(HTTP_LOGGER);
  app.use(assignRequestId);
  app.use(httpLogger);
  app.use(app.get(HttpMetrics).middleware);
  app.use(helmet());
  if (config instanceof ServiceConfig) {
    if (definition.internalAuth !== false) app.use(internalAuthMiddleware(config.INTERNAL_TOKEN));
    if (!config.INTERNAL_TOKEN && config.NODE_ENV === 'production') {
      httpLogger.logger.warn(
        { context: 'InternalAuth' },
        'INTERNAL_TOKEN is not set: identity headers travel unsigned and services trust them as they come',
      );
    }
  }
  definition.beforeBodyParsers?.(app);
  app.useBodyParser('json', { limit: config.BODY_LIMIT, type: ['application/json', 'application/*+json'] });
  app.use(expressErrorHandler);
  app.use(enterRequestContext);
  return app;
}

/**
 * Starts an app: settings first (a bad one stops the process with one line and status 78), then the Nest app,
 * then the port. SIGTERM and SIGINT drain in-flight requests and close connections; if that takes longer than
 * `SHUTDOWN_TIMEOUT_MS` the process exits anyway. Under the dev launcher the app also stops when the launcher dies.
 */
export async function bootstrap<C extends AppConfig>(definition: AppDefinition<C>): Promise<NestExpressApplication> {
  let config: C;
  try {
    config = loadConfig(definition.config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${definition.name}: ${error.message}\n`);
    process.exit(EXIT_CONFIG);
  }

  const logger = new NestLogger('Bootstrap');
  let app: NestExpressApplication;
  try {
    app = await createApp(definition, config);
  } catch (error) {
    process.stderr.write(`${definition.name}: failed to start: ${error instanceof Error ? error.message : error}\n`);
    process.exit(1);
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void stop(app, config, logger, signal));
  }
  if (process.send && process.env['RP_DEV_LAUNCHER'] === '1') {
    process.once('disconnect', () => void stop(app, config, logger, 'launcher gone'));
  }

  // Idle connections outlive a load balancer's usual 60 s idle timeout and the gateway's pooled connections, so it
  // is always the client that closes an idle connection: a server closing one as the client reuses it drops a call.
  const server = app.getHttpServer() as Server;
  server.keepAliveTimeout = IDLE_CONNECTION_TIMEOUT_MS;
  server.headersTimeout = IDLE_CONNECTION_TIMEOUT_MS + 1000;
  try {
    await app.listen(config.PORT, config.HOST);
  } catch (error) {
    process.stderr.write(`${definition.name}: cannot listen on ${config.HOST}:${config.PORT}: ${String(error)}\n`);
    process.exit(1);
  }
  logger.log({ config: describeConfig(config) }, `${definition.name} listening on ${config.HOST}:${config.PORT}`);
  return app;
}

let stopping = false;

async function stop(app: NestExpressApplication, config: AppConfig, logger: NestLogger, reason: string) {
  if (stopping) return;
  stopping = true;
  logger.log(`stopping (${reason})`);
  const deadline = setTimeout(() => {
    logger.error(`still busy after ${config.SHUTDOWN_TIMEOUT_MS} ms, exiting`);
    process.exit(1);
  }, config.SHUTDOWN_TIMEOUT_MS);
  deadline.unref();
  try {
    await app.close();
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, 'error while stopping');
    process.exit(1);
  }
}
