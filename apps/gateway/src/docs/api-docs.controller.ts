import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Controller, Get, Header, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ErrorCode } from '@rp/contracts';
import { ApiError, type HttpReply } from '@rp/platform';
import { ApiDocs } from './api-docs';
import { GatewayDocument } from './gateway-document';
import {
  SWAGGER_UI_ASSETS,
  SWAGGER_UI_CSP,
  SWAGGER_UI_INIT,
  SWAGGER_UI_PAGE,
  swaggerUiAssetsDirectory,
} from './swagger-ui';

/** `/api/docs`: Swagger UI over the merged document, which is at `/api/docs/openapi.json`. Public. */
@ApiExcludeController()
@Controller('api/docs')
export class ApiDocsController {
  constructor(private readonly docs: ApiDocs) {}

  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  @Header('Content-Security-Policy', SWAGGER_UI_CSP)
  page(): string {
    return SWAGGER_UI_PAGE;
  }

  @Get('openapi.json')
  @Header('Cache-Control', 'no-cache')
  document(): Promise<GatewayDocument> {
    return this.docs.document();
  }

  @Get('swagger-ui-init.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  init(): string {
    return SWAGGER_UI_INIT;
  }

  /** Only the listed files of swagger-ui-dist, by exact name: nothing else of the folder can be reached. */
  @Get(':asset')
  asset(@Param('asset') name: string, @Res({ passthrough: true }) reply: HttpReply): Readable {
    const contentType = SWAGGER_UI_ASSETS.get(name);
    if (!contentType) throw new ApiError(404, ErrorCode.NOT_FOUND, `No route for GET /api/docs/${name}`);
    reply.type(contentType).header('Cache-Control', 'public, max-age=86400');
    return createReadStream(join(swaggerUiAssetsDirectory(), name));
  }
}
