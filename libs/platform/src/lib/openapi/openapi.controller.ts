import { Controller, Get, Header, Inject, Injectable, INestApplication } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import { OpenApiInfo, PUBLIC_API_VERSION, buildOpenApiDocument } from './openapi-document';

export const OPENAPI_INFO = Symbol('rp:openapi-info');

/**
 * Builds the app's document on first demand, when every route is registered, and keeps it: routes do not change
 * while the process runs. `createApp` hands it the app.
 */
@Injectable()
export class OpenApiPublisher {
  private app?: INestApplication;
  private built?: OpenAPIObject;

  constructor(@Inject(OPENAPI_INFO) private readonly info: OpenApiInfo) {}

  attach(app: INestApplication): void {
    this.app = app;
  }

  document(): OpenAPIObject {
    if (!this.built) {
      if (!this.app) throw new Error('OpenApiPublisher has no app to describe: createApp attaches it');
      this.built = buildOpenApiDocument(this.app, { ...this.info, version: PUBLIC_API_VERSION });
    }
    return this.built;
  }
}

/** `GET /openapi.json`: outside `/api/v1`, so the gateway never forwards it; it fetches it to merge. */
@ApiExcludeController()
@Controller()
export class OpenApiController {
  constructor(private readonly publisher: OpenApiPublisher) {}

  @Get('openapi.json')
  @Header('Cache-Control', 'no-cache')
  document(): OpenAPIObject {
    return this.publisher.document();
  }
}
