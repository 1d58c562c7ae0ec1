import { DynamicModule, Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { AppConfig } from '../config/app-config';
import { ReadinessCheck } from '../health/readiness-check';
import { OpenApiInfo } from '../openapi/openapi-document';

/** What an app tells the platform about itself; its `main.ts` passes this to `bootstrap()`. */
export interface AppDefinition<C extends AppConfig> {
  /** Short name: logs, metrics labels, the embedded database file. */
  name: string;
  config: Type<C>;
  /** The app's modules, built from its validated config (so drivers can be picked by setting). */
  modules(config: C): DynamicModule[];
  /** Dependencies `/health/ready` waits for; classes provided by those modules. */
  readiness(config: C): Type<ReadinessCheck>[];
  /** How many reverse proxies in front of the app are trusted for the client address (`X-Forwarded-For`). */
  trustedProxies?(config: C): number;
  /**
   * Routes and hooks the app adds to the HTTP server itself, outside Nest's router, once the platform's hooks are
   * in place (the gateway's forwarding routes). Runs before the app is initialised.
   */
  configureHttp?(http: FastifyInstance, app: NestFastifyApplication): void | Promise<void>;
  /** Serve the app's OpenAPI document at `GET /openapi.json` (the gateway merges them); omitted: none. */
  openApi?: OpenApiInfo;
  /**
   * `false` for the gateway only: it signs the internal identity headers and does not check them. Every other
   * service checks them (`INTERNAL_TOKEN`).
   */
  internalAuth?: false;
  /**
   * `false` for the gateway only: no async context carries the request id into code run for a request (its few log
   * lines name the id themselves). On Node 20 that context costs every promise of the process a hook, which the
   * gateway's hot path, almost all promises, should not pay.
   */
  requestContext?: false;
}
