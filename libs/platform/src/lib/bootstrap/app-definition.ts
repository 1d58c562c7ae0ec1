import { DynamicModule, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppConfig } from '../config/app-config';
import { ReadinessCheck } from '../health/readiness-check';
import { OpenApiInfo } from '../openapi/openapi-document';

/** What an app tells the platform about itself; its `main.ts` passes this to `bootstrap()`. */
export interface AppDefinition<C extends AppConfig> {
  /** Short name: logs, metrics labels, the embedded database folder. */
  name: string;
  config: Type<C>;
  /** The app's modules, built from its validated config (so drivers can be picked by setting). */
  modules(config: C): DynamicModule[];
  /** Dependencies `/health/ready` waits for; classes provided by those modules. */
  readiness(config: C): Type<ReadinessCheck>[];
  /** Express middleware that must see requests before body parsing (the gateway's streaming proxy). */
  beforeBodyParsers?(app: NestExpressApplication): void;
  /** Serve the app's OpenAPI document at `GET /openapi.json` (the gateway merges them); omitted: none. */
  openApi?: OpenApiInfo;
  /**
   * `false` for the gateway only: it signs the internal identity headers and does not check them. Every other
   * service checks them (`INTERNAL_TOKEN`).
   */
  internalAuth?: false;
}
