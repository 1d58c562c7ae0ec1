import type { ComponentsObject, OpenAPIObject, OperationObject, PathItemObject, ResponseObject } from '@nestjs/swagger';
import { STANDARD_BURST, STANDARD_RATE_LIMIT } from '@rp/contracts';
import {
  ERROR_ENVELOPE_REF,
  ERROR_ENVELOPE_SCHEMA,
  ERROR_ENVELOPE_SCHEMA_NAME,
  HTTP_METHODS,
  PUBLIC_API_VERSION,
  SECURITY_SCHEMES,
  SecuritySchemeName,
} from '@rp/platform';
import { ServiceDocument, mergeServiceDocuments } from './merge-documents';

export const API_TITLE = 'Risk protection API';

export const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const;
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const errorContent = { 'application/json': { schema: { $ref: ERROR_ENVELOPE_REF } } };

/** What the gateway adds to every service's routes: its own answers (401, 429) and headers. */
export const GATEWAY_COMPONENTS: ComponentsObject = {
  schemas: { [ERROR_ENVELOPE_SCHEMA_NAME]: ERROR_ENVELOPE_SCHEMA },
  securitySchemes: { ...SECURITY_SCHEMES },
  headers: {
    'RateLimit-Limit': { description: 'Capacity of the bucket this request drew from.', schema: { type: 'integer' } },
    'RateLimit-Remaining': { description: 'Requests left in the bucket.', schema: { type: 'integer' } },
    'RateLimit-Reset': { description: 'Seconds until the bucket is full again.', schema: { type: 'integer' } },
    'Retry-After': { description: 'Seconds to wait before the next request can pass.', schema: { type: 'integer' } },
  },
  responses: {
    Unauthorized: {
      description: 'No API key, or one that is unknown, expired or revoked.',
      headers: { 'WWW-Authenticate': { description: '`Bearer`', schema: { type: 'string' } } },
      content: errorContent,
    },
    RateLimited: {
      description: 'The bucket is empty (`RATE_LIMITED`): retry after `Retry-After` seconds.',
      headers: Object.fromEntries(['Retry-After', ...RATE_LIMIT_HEADERS].map((name) => [name, headerRef(name)])),
      content: errorContent,
    },
  },
};

const KEY_SCHEMES = new Set<string>([SecuritySchemeName.apiKey, SecuritySchemeName.apiKeyHeader]);

/** A service's document with the gateway's answers on each operation: 429 everywhere, 401 where a key is needed. */
export function withGatewayAnswers(document: ServiceDocument['document']): ServiceDocument['document'] {
  const paths: Record<string, PathItemObject> = {};
  for (const [path, item] of Object.entries(document.paths)) {
    const copy: PathItemObject = { ...item };
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation) copy[method] = withAnswers(operation);
    }
    paths[path] = copy;
  }
  const components: Record<string, Record<string, unknown> | undefined> = { ...document.components };
  for (const [kind, entries] of Object.entries(GATEWAY_COMPONENTS)) {
    components[kind] = { ...(entries as Record<string, unknown>), ...components[kind] };
  }
  return { ...document, paths, components: components as ComponentsObject };
}

function withAnswers(operation: OperationObject): OperationObject {
  const responses: OperationObject['responses'] = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    responses[status] =
      status.startsWith('2') && response && !('$ref' in response) ? withRateLimitHeaders(response) : response;
  }
  const needsKey = operation.security?.some((requirement) => Object.keys(requirement).some((s) => KEY_SCHEMES.has(s)));
  if (needsKey) responses['401'] ??= { $ref: '#/components/responses/Unauthorized' };
  responses['429'] ??= { $ref: '#/components/responses/RateLimited' };
  // An operation without a requirement is public: say so (`security: []`) rather than leave readers to guess.
  return { ...operation, security: operation.security ?? [], responses };
}

function withRateLimitHeaders(response: ResponseObject): ResponseObject {
  const headers = { ...response.headers };
  for (const name of RATE_LIMIT_HEADERS) headers[name] ??= headerRef(name);
  return { ...response, headers };
}

export interface UnavailableService {
  service: string;
  reason: string;
}

/** The merged document plus the services missing from it (also named in `info.description`). */
export type GatewayDocument = OpenAPIObject & {
  'x-unavailable-services': UnavailableService[];
  'x-tagGroups': { name: string; tags: string[] }[];
};

/** The document the gateway serves: every reachable service's routes, the gateway's answers, how to authenticate. */
export function gatewayDocument(
  services: readonly ServiceDocument[],
  unavailable: readonly UnavailableService[],
): GatewayDocument {
  const merged = mergeServiceDocuments([
    { service: 'gateway', document: { paths: {}, components: GATEWAY_COMPONENTS } },
    ...services.map((entry) => ({ ...entry, document: withGatewayAnswers(entry.document) })),
  ]);
  return {
    openapi: '3.0.3',
    info: { title: API_TITLE, version: PUBLIC_API_VERSION, description: describe(unavailable) },
    servers: [{ url: '/' }],
    paths: sortedByKey(merged.paths),
    components: merged.components,
    tags: merged.tags,
    'x-tagGroups': merged.tagGroups,
    'x-unavailable-services': [...unavailable],
  };
}

function sortedByKey<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function describe(unavailable: readonly UnavailableService[]): string {
  const sections = [
    'Every route is under `/api/v1` on this gateway, which forwards it to the service that owns it.',
    '## Authentication\n' +
      'Send your API key as `Authorization: Bearer <key>` or as `X-API-Key: <key>` (either one). Subscribing, ' +
      'the subscription status and `/txb/status` need no key. Operator routes take `x-admin-key`; the inbound ' +
      'alert webhook takes `X-Webhook-Secret`. A route that needs a key answers 401 without a valid one.',
    '## Rate limits\n' +
      `Each key draws from its own token bucket (standard keys: ${STANDARD_RATE_LIMIT} requests per minute, bursts ` +
      `of ${STANDARD_BURST}); routes without a key share a bucket per client address. Answers carry ` +
      '`RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`; an empty bucket answers 429 with `Retry-After`.',
    '## Errors\nEvery error answer is an `ErrorEnvelope` with a stable `code` and, for bad input, one `details` entry per field.',
  ];
  if (unavailable.length > 0) {
    sections.push(
      '## Not documented right now\nThese services did not hand over their documents, so their routes are ' +
        `missing below: ${unavailable.map(({ service, reason }) => `${service} (${reason})`).join(', ')}.`,
    );
  }
  return sections.join('\n\n');
}
