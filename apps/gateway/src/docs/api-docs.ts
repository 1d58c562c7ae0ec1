import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { findDanglingRefs } from '@rp/platform';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ServiceRoute } from '../routing/service-routes';
import { GatewayDocument, UnavailableService, gatewayDocument } from './gateway-document';
import { ServiceDocument } from './merge-documents';
import { DocumentUnavailable, ServiceDocuments } from './service-documents';

/** The merged document is rebuilt at most this often. */
export const DOCUMENT_REFRESH_MS = 30_000;

export interface ApiDocsTiming {
  refreshMs: number;
  now: () => number;
}

export const API_DOCS_TIMING = Symbol('rp:api-docs-timing');

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  subscription: 'API keys: x402 payment (direct and server-assisted), status, partner keys.',
  txb: 'Transactions that repay, liquidate or unwind a Blend position; proposals, submit, tracking.',
  notifications: 'Risk evaluation of positions and alerts on Telegram, Discord/Slack and email.',
};

/**
 * The gateway's merged OpenAPI document, rebuilt from the services' documents when older than 30 s. Requests that
 * arrive while a rebuild runs wait for that one rebuild, which the per-service fetch timeout bounds; a service that
 * does not answer in time is left out of this round and named in the document.
 */
@Injectable()
export class ApiDocs {
  private readonly logger = new Logger(ApiDocs.name);
  private readonly timing: ApiDocsTiming;
  private current?: { document: GatewayDocument; builtAt: number };
  private rebuilding?: Promise<GatewayDocument>;

  constructor(
    private readonly services: ServiceDocuments,
    @Optional() @Inject(API_DOCS_TIMING) timing?: ApiDocsTiming,
  ) {
    this.timing = timing ?? { refreshMs: DOCUMENT_REFRESH_MS, now: Date.now };
  }

  async document(): Promise<GatewayDocument> {
    if (this.current && this.timing.now() - this.current.builtAt < this.timing.refreshMs) {
      return this.current.document;
    }
    this.rebuilding ??= this.rebuild().finally(() => {
      this.rebuilding = undefined;
    });
    return this.rebuilding;
  }

  private async rebuild(): Promise<GatewayDocument> {
    const fetched = await Promise.all(
      this.services.routes.map(async (route) => {
        try {
          return { route, document: await this.services.fetch(route), reason: undefined };
        } catch (error) {
          const reason = error instanceof DocumentUnavailable ? error.message : 'failed';
          if (!(error instanceof DocumentUnavailable)) this.logger.error({ err: error }, 'fetching a document failed');
          return { route, document: undefined, reason };
        }
      }),
    );
    const { document, unavailable } = assembleApiDocument(fetched);
    if (unavailable.length > 0) {
      this.logger.warn(
        `API docs without ${unavailable.map(({ service, reason }) => `${service} (${reason})`).join(', ')}`,
      );
    }
    const dangling = findDanglingRefs(document);
    if (dangling.length > 0) this.logger.warn({ dangling }, 'the merged API document has unresolved references');
    this.current = { document, builtAt: this.timing.now() };
    return document;
  }
}

/** A service's document as the gateway got it, or why it did not. */
export interface FetchedDocument {
  route: ServiceRoute;
  document: OpenAPIObject | undefined;
  reason: string | undefined;
}

/** The merged document from the services' documents (the served one and the committed `docs/openapi.json`). */
export function assembleApiDocument(fetched: readonly FetchedDocument[]): {
  document: GatewayDocument;
  unavailable: UnavailableService[];
} {
  const available: ServiceDocument[] = [];
  const unavailable: UnavailableService[] = [];
  for (const { route, document, reason } of fetched) {
    const { service, prefix } = route;
    if (!document) {
      unavailable.push({ service, reason: reason ?? 'failed' });
      continue;
    }
    const about = DESCRIPTIONS[service] ?? document.info.title;
    available.push({
      service,
      tag: { name: service, description: `${about} Routes under \`${prefix}\`.` },
      document,
    });
  }
  return { document: gatewayDocument(available, unavailable), unavailable };
}
