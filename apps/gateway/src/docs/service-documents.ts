import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { OpenAPIObject, PathItemObject } from '@nestjs/swagger';
import { HttpClient, UpstreamError, currentRequestId } from '@rp/platform';
import { GatewayConfig } from '../config/gateway.config';
import { internalCallHeaders } from '../routing/internal-call';
import { ServiceRoute, routeFor, serviceRoutes } from '../routing/service-routes';

/** Where every service publishes its document (`AppDefinition.openApi`); never forwarded from outside. */
export const SERVICE_DOCUMENT_PATH = '/openapi.json';

/** A service that has not answered in this long is left out of the merged document for this round. */
export const DOCUMENT_FETCH_TIMEOUT_MS = 2000;

/** Why a service's document is missing. */
export class DocumentUnavailable extends Error {
  override readonly name = 'DocumentUnavailable';
}

/** Fetches a service's OpenAPI document, keeping only the paths the gateway actually routes to that service. */
@Injectable()
export class ServiceDocuments {
  private readonly logger = new Logger(ServiceDocuments.name);
  readonly routes: readonly ServiceRoute[];

  constructor(
    private readonly http: HttpClient,
    private readonly config: GatewayConfig,
  ) {
    this.routes = serviceRoutes(config);
  }

  async fetch(route: ServiceRoute): Promise<OpenAPIObject> {
    const requestId = currentRequestId() ?? randomUUID();
    const url = new URL(SERVICE_DOCUMENT_PATH, route.target).toString();
    let answer: unknown;
    try {
      const response = await this.http.fetch(url, {
        timeoutMs: Math.min(DOCUMENT_FETCH_TIMEOUT_MS, this.config.UPSTREAM_TIMEOUT_MS),
        headers: {
          accept: 'application/json',
          ...internalCallHeaders('GET', SERVICE_DOCUMENT_PATH, requestId, this.config.INTERNAL_TOKEN),
        },
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new DocumentUnavailable(`answered ${response.status}`);
      }
      answer = await response.json();
    } catch (error) {
      if (error instanceof DocumentUnavailable) throw error;
      if (error instanceof UpstreamError) throw new DocumentUnavailable(error.failure, { cause: error });
      // The time limit covers the body too; running out while reading it surfaces as a TimeoutError.
      if (error instanceof Error && error.name === 'TimeoutError') {
        throw new DocumentUnavailable('timeout', { cause: error });
      }
      throw new DocumentUnavailable('unreadable answer', { cause: error });
    }
    if (!isOpenApi3(answer)) throw new DocumentUnavailable('not an OpenAPI 3 document');
    const paths = ownedPaths(this.routes, route, answer.paths, (path) =>
      this.logger.warn(`${route.service} documents ${path}, which the gateway does not route to it; left out`),
    );
    return { ...answer, paths };
  }
}

/** A path the service documents but the gateway would send elsewhere (or nowhere) is not a route of the API. */
export function ownedPaths(
  routes: readonly ServiceRoute[],
  route: ServiceRoute,
  paths: Record<string, PathItemObject>,
  leftOut: (path: string) => void,
): Record<string, PathItemObject> {
  const owned: Record<string, PathItemObject> = {};
  for (const [path, item] of Object.entries(paths)) {
    if (routeFor(routes, path)?.service === route.service) owned[path] = item;
    else leftOut(path);
  }
  return owned;
}

function isOpenApi3(value: unknown): value is OpenAPIObject {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<OpenAPIObject>;
  return (
    typeof candidate.openapi === 'string' &&
    candidate.openapi.startsWith('3.') &&
    typeof candidate.paths === 'object' &&
    candidate.paths !== null
  );
}
