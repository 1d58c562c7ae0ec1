import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The request and reply every app's controllers, guards and hooks see. The platform owns the HTTP adapter
 * (Fastify); apps name these types instead of the adapter's.
 */
export type HttpRequest = FastifyRequest;
export type HttpReply = FastifyReply;

/** The first value of a request header, or `undefined`. */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
