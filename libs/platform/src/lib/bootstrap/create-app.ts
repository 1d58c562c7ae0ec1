import 'reflect-metadata';
import type { Server } from 'node:http';

import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { Counter, Registry } from 'prom-client';
import { AppConfig, InternalAuthConfig } from '../config/app-config';
import { secretValuesOf } from '../config/load-config';
import { sendError } from '../errors/error-envelope.filter';
import { bodyLimitBytes, registerJsonBodies } from '../http/request-body';
import { answerClientError, answerFrameworkError } from '../http/client-errors';
import { refuseOddRequestTargets } from '../http/request-target';
import { helmetHeaders, securityHeadersHook } from '../http/security-headers';
import { internalAuthHooks } from '../internal-auth/internal-auth.hook';
import type { NonceStore } from '../internal-auth/nonce-store';
import { accessLog } from '../logging/access-log';
import { createAppLogger } from '../logging/app-logger';
import { NestPinoLogger } from '../logging/nest-logger';
import { echoRequestId, enterRequestContext, requestIdOfIncoming } from '../logging/request-context';
import { HttpMetrics } from '../metrics/http-metrics';
import { OpenApiPublisher } from '../openapi/openapi.controller';
import { AppDefinition } from './app-definition';
import { INTERNAL_NONCES, PlatformModule } from './platform.module';

/** How long an app keeps an idle keep-alive connection open. */
export const IDLE_CONNECTION_TIMEOUT_MS = 65_000;

export interface CreateAppOptions {
  /** Where log lines go; tests pass a stream to read them. */
  logDestination?: NodeJS.WritableStream;
}

/**
 * Builds the app on Nest's Fastify adapter with every platform layer in place, without listening. Tests call this
 * directly (then `initApp`). The layers are Fastify hooks, not middleware, so a request pays only for what it uses:
 * onRequest: request id, a canonical request target (else 400), security headers, the gateway's signature and nonce check (before any body is read);
 * preParsing / parser: the signed body hash over the bytes as they arrive, decompression and strict JSON;
 * preValidation: a signed body that was never read must be empty; preHandler: the request's async context;
 * onResponse: the access line and the duration metric. Errors raised outside Nest's router (body reading, hooks)
 * leave in the same envelope as those raised inside it.
 */
export async function createApp<C extends AppConfig>(
  definition: AppDefinition<C>,
  config: C,
  options: CreateAppOptions = {},
): Promise<NestFastifyApplication> {
  const logger = createAppLogger({
    appName: definition.name,
    level: config.LOG_LEVEL,
    secrets: secretValuesOf(config),
    destination: options.logDestination,
  });
  const bodyLimit = bodyLimitBytes(config.BODY_LIMIT);
  const adapter = new PlatformAdapter({
    logger: false,
    bodyLimit,
    genReqId: requestIdOfIncoming,
    requestIdHeader: false,
    trustProxy: definition.trustedProxies?.(config) ?? false,
    // Idle connections outlive a load balancer's usual 60 s idle timeout and the gateway's pooled connections, so
    // it is always the client that closes an idle connection: a server closing one as the client reuses it drops
    // a call.
    keepAliveTimeout: IDLE_CONNECTION_TIMEOUT_MS,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // What Node's parser or the router refuse before any hook runs is answered in the envelope too.
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
    // Services route `/x/` as `/x`; the gateway classifies paths the same way.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    PlatformModule.forRoot({
      appName: definition.name,
      config,
      imports: definition.modules(config),
      readiness: definition.readiness(config),
      logger,
      openApi: definition.openApi,
    }),
    adapter,
    { bufferLogs: true, bodyParser: false, abortOnError: false },
  );
  app.useLogger(new NestPinoLogger(logger));
  app.flushLogs();
  (app.getHttpServer() as Server).headersTimeout = IDLE_CONNECTION_TIMEOUT_MS + 1000;

  const http = app.getHttpAdapter().getInstance();
  http.addHook('onRequest', echoRequestId);
  http.addHook('onRequest', refuseOddRequestTargets);
  http.addHook('onRequest', securityHeadersHook(helmetHeaders()));
  if (config instanceof InternalAuthConfig && definition.internalAuth !== false) {
    const hooks = internalAuthHooks({
      token: config.INTERNAL_TOKEN,
      nonces: app.get<NonceStore>(INTERNAL_NONCES),
      refusals: internalAuthRefusals(app.get(Registry)),
    });
    http.addHook('onRequest', hooks.onRequest);
    if (config.INTERNAL_TOKEN) {
      // Before the body readers' own preParsing step, so the hash covers the bytes as they arrived (compressed).
      http.addHook('preParsing', hooks.preParsing);
      http.addHook('preValidation', hooks.preValidation);
    }
  }
  await registerJsonBodies(http, bodyLimit);
  if (definition.requestContext !== false) http.addHook('preHandler', enterRequestContext);
  http.addHook('onResponse', accessLog(logger));
  http.addHook('onResponse', app.get(HttpMetrics).observe);
  http.setErrorHandler((error, request, reply) => {
    // A 413 says what the limit is.
    if ((error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      Object.assign(error as object, { limit: bodyLimit });
    }
    sendError(error, request, reply);
  });
  drainOnClose(http);
  await definition.configureHttp?.(http, app);
  // The document is built on its first request, once every route is registered.
  if (definition.openApi) app.get(OpenApiPublisher).attach(app);
  return app;
}

function internalAuthRefusals(registry: Registry): Counter<'reason'> {
  return new Counter({
    name: 'internal_auth_refused_total',
    help: 'Calls refused for want of a valid gateway signature, by reason (unsigned, bad-signature, replayed, ...)',
    labelNames: ['reason'],
    registers: [registry],
  });
}

/**
 * Nest's adapter, except that the platform answers every error raised outside a route (body reading, hooks) itself:
 * Nest would install its own Fastify error handler at init, which turns Fastify's errors into bare HTTP exceptions
 * and drops their codes. Errors inside routes still go through Nest's filters (the platform's envelope filter).
 */
class PlatformAdapter extends FastifyAdapter {
  override setErrorHandler(): FastifyInstance {
    return this.getInstance();
  }
}

/**
 * While the server closes, every answer still being written says `Connection: close`, so a client holding a
 * keep-alive connection lets go of it and the close can finish once the requests in flight are answered.
 */
function drainOnClose(http: FastifyInstance): void {
  http.addHook('preClose', (done) => {
    draining.add(http);
    done();
  });
  http.addHook('onSend', (_request, reply, payload, done) => {
    if (draining.has(http)) reply.header('connection', 'close');
    done(null, payload);
  });
}

const draining = new WeakSet<FastifyInstance>();

/**
 * True once the server has begun to close. Code that writes an answer itself (a hijacked reply, which Fastify's
 * `onSend` hooks never see) says `Connection: close` then, as every other answer does.
 */
export function isDraining(server: FastifyInstance): boolean {
  // A route's `server` is its plugin context, which inherits from the root instance the hook marked.
  for (let context: object | null = server; context; context = Object.getPrototypeOf(context) as object | null) {
    if (draining.has(context as FastifyInstance)) return true;
  }
  return false;
}

/** Initialises an app built by `createApp` and waits until its HTTP server can take requests (tests). */
export async function initApp(app: NestFastifyApplication): Promise<NestFastifyApplication> {
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}
