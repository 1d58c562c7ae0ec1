import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import helmet from 'helmet';

/**
 * Route config `securityHeaders: false`: the route's answers carry security headers of their own (the gateway's
 * forwarded answers carry the service's).
 */
export interface SecurityHeadersRouteConfig {
  securityHeaders?: false;
}

/**
 * helmet's default headers (CSP, HSTS, X-Content-Type-Options, X-Frame-Options, ...), computed once: with the
 * defaults they never change from one answer to the next, while @fastify/helmet rebuilt helmet's whole middleware
 * (CSP parsing included) for every request, about 10 us of a service's 180.
 */
export function helmetHeaders(): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const capture = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => delete headers[name],
    getHeader: (name: string) => headers[name],
  };
  helmet()({} as IncomingMessage, capture as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return Object.freeze(headers);
}

/** `onRequest` hook setting the security headers on every answer but those of routes that opt out. */
export function securityHeadersHook(headers: Readonly<Record<string, string>>) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if ((request.routeOptions.config as SecurityHeadersRouteConfig | undefined)?.securityHeaders !== false) {
      reply.headers(headers);
    }
    done();
  };
}
