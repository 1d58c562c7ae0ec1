import type { OpenAPIObject } from '@nestjs/swagger';
import { findDanglingRefs, loadConfig } from '@rp/platform';
import { GatewayConfig } from '../config/gateway.config';
import { serviceRoutes } from '../routing/service-routes';
import { assembleApiDocument } from './api-docs';
import { ownedPaths } from './service-documents';

/** Where the merged document is committed, relative to the workspace root; clients are generated from it. */
export const COMMITTED_DOCUMENT_FILE = 'docs/openapi.json';

/** What rewrites the committed document from the code. */
export const REGENERATE_DOCUMENT = 'npx nx run gateway:openapi';

/**
 * The text of `docs/openapi.json`: the document the gateway serves at `/api/docs/openapi.json` when every service
 * answers, built from the services' documents as they build them (`documents`, by service name). Nothing in it
 * depends on the machine or the moment (no ports, no dates), so the same code always gives the same bytes.
 * A service missing from `documents`, a path no service owns or a reference to nothing fails: the committed
 * document is the whole API or nothing.
 */
export function committedDocument(documents: Readonly<Record<string, OpenAPIObject>>): string {
  const routes = serviceRoutes(loadConfig(GatewayConfig, {}));
  const leftOut: string[] = [];
  const fetched = routes.map((route) => {
    const document = documents[route.service];
    if (!document) return { route, document: undefined, reason: 'not given' };
    const paths = ownedPaths(routes, route, document.paths, (path) => leftOut.push(`${route.service}: ${path}`));
    return { route, document: { ...document, paths }, reason: undefined };
  });
  const { document, unavailable } = assembleApiDocument(fetched);
  const problems = [
    ...unavailable.map(({ service }) => `no document of ${service}`),
    ...leftOut.map((path) => `a path the gateway does not route to its service (${path})`),
    ...findDanglingRefs(document).map((ref) => `a reference to nothing (${JSON.stringify(ref)})`),
  ];
  if (problems.length > 0) throw new Error(`the merged document is incomplete: ${problems.join('; ')}`);
  return `${JSON.stringify(document, null, 2)}\n`;
}
