import { Controller, Get, Header, Param, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ErrorCode } from '@rp/contracts';
import { ApiError, sendError } from '@rp/platform';
import type { Request, Response } from 'express';
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

  @Get(':asset')
  asset(@Param('asset') name: string, @Req() req: Request, @Res() res: Response): void {
    const contentType = SWAGGER_UI_ASSETS.get(name);
    if (!contentType) throw new ApiError(404, ErrorCode.NOT_FOUND, `No route for GET ${req.path}`);
    res.type(contentType).setHeader('Cache-Control', 'public, max-age=86400');
    res.sendFile(name, { root: swaggerUiAssetsDirectory(), dotfiles: 'deny' }, (error) => {
      if (error) sendError(error, req, res);
    });
  }
}
