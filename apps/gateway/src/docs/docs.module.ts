import { Module } from '@nestjs/common';
import { ApiDocs } from './api-docs';
import { ApiDocsController } from './api-docs.controller';
import { ServiceDocuments } from './service-documents';

/** The merged OpenAPI document of the services and Swagger UI over it, at `/api/docs`. */
@Module({ controllers: [ApiDocsController], providers: [ServiceDocuments, ApiDocs] })
export class DocsModule {}
