import { ErrorCode } from '@rp/contracts';
import { ApiError, type HttpReply, type HttpRequest } from '@rp/platform';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { AccessControl, NOT_OWNED_ROUTES } from '../access/access-control';
import { ServiceProxy } from './service-proxy';
import { ServiceRoute } from './service-routes';

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Route config of the forwarding routes: the body is passed on as it came, never decoded or parsed here. */
export const FORWARDED_BODY = { forwardBody: true } as const;

/**
 * The gateway's `/api/v1` routes, outside Nest's router. Forwarding routes live in a Fastify context of their own
 * where a body is read as bytes, whatever its type or encoding, up to the gateway's `BODY_LIMIT` (413 beyond it),
 * never decoded or parsed: the exact bytes are forwarded with their hash in the signed internal headers, and the
 * service parses them. Paths no service owns live in another context, with the platform's JSON reading, so a body
 * there is refused like anywhere else (400, 413) before the 404. In both, paths with dot segments are refused and
 * access control runs first (before any body is read).
 */
export async function registerForwarding(
  http: FastifyInstance,
  routes: readonly ServiceRoute[],
  proxy: ServiceProxy,
  access: AccessControl,
): Promise<void> {
  // One hook, not two: each hook a request passes costs it a step of Fastify's hook runner. Each context has its
  // own, which knows whether its routes are owned by a service (no per-request look at the matched route).
  const admission =
    (owned: boolean) =>
    async (request: HttpRequest, reply: HttpReply): Promise<void> => {
      refuseDotSegments(request);
      await access.admit(request, reply, owned);
    };
  await http.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Bytes as they came, up to the instance's body limit (BODY_LIMIT): the signature covers their hash.
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.addHook('onRequest', admission(true));
    for (const route of routes) {
      for (const url of [route.prefix, `${route.prefix}/*`]) {
        scope.route({
          method: METHODS,
          url,
          exposeHeadRoute: false,
          // Bodies pass on compressed as they came; answers pass back as the service wrote them.
          compress: false,
          decompress: false,
          // The service's answer carries the security headers of its own platform; setting them again is waste.
          config: { ...FORWARDED_BODY, metricsRoute: `${route.prefix}/*`, securityHeaders: false },
          handler: proxy.forward,
        });
      }
    }
  });
  await http.register(async (scope) => {
    scope.addHook('onRequest', admission(false));
    for (const url of NOT_OWNED_ROUTES) {
      scope.route({
        method: METHODS,
        url,
        exposeHeadRoute: false,
        config: { metricsRoute: 'unmatched' },
        handler: async (request) => {
          throw new ApiError(404, ErrorCode.NOT_FOUND, `No route for ${request.method} ${request.url.split('?')[0]}`);
        },
      });
    }
  });
}

/**
 * `.` and `..` segments (also percent-encoded) would let a path that the gateway classifies as one route reach
 * another once a service normalises it: refused outright.
 */
function refuseDotSegments(request: HttpRequest): void {
  const url = request.raw.url ?? '';
  if (!url.includes('.') && !url.includes('%')) return;
  const path = url.split('?')[0];
  const dotted = path.split('/').some((segment) => {
    const plain = segment.replace(/%2e/gi, '.');
    return plain === '.' || plain === '..';
  });
  if (dotted) {
    throw new ApiError(400, ErrorCode.BAD_REQUEST, 'Paths with "." or ".." segments are refused', {
      details: [{ field: 'path', message: 'must not contain "." or ".." segments' }],
    });
  }
}
