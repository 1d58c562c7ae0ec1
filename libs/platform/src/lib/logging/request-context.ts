import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The id of the request being served, for outgoing calls and logs; `undefined` outside a request. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

export function runWithRequestId<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}

/** Accepts a caller's id when it is a reasonable token; anything else is replaced, never echoed. */
export function acceptRequestId(incoming: unknown): string {
  return typeof incoming === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
}

/** Fastify's `genReqId`: the request's id, fixed once and written back to the header the proxy passes on. */
export function requestIdOfIncoming(raw: IncomingMessage): string {
  const id = acceptRequestId(raw.headers[REQUEST_ID_HEADER]);
  raw.headers[REQUEST_ID_HEADER] = id;
  return id;
}

/** First `onRequest` hook of every app: every answer, errors included, carries the id. */
export function echoRequestId(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  reply.header(REQUEST_ID_HEADER, request.id);
  done();
}

/**
 * `preHandler` hook: opens the async context that carries the request id into services and outgoing calls. It runs
 * after the body is parsed, whose stream callbacks would otherwise fall outside the context.
 */
export function enterRequestContext(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  storage.run({ requestId: request.id }, done);
}

export function requestIdOf(request: FastifyRequest): string {
  return request.id;
}
