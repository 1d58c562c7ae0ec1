import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

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

/** First middleware of every app: fixes the request id, echoes it, and leaves it on the request for the proxy. */
export function assignRequestId(req: Request, res: Response, next: NextFunction): void {
  const id = acceptRequestId(req.headers[REQUEST_ID_HEADER]);
  (req as Request & { id: string }).id = id;
  req.headers[REQUEST_ID_HEADER] = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  next();
}

/**
 * Opens the async context that carries the request id into services and outgoing calls. It runs after the body
 * parsers, whose stream callbacks would otherwise fall outside the context.
 */
export function enterRequestContext(req: Request, _res: Response, next: NextFunction): void {
  runWithRequestId(requestIdOf(req), next);
}

export function requestIdOf(req: Request): string {
  return (req as Request & { id?: string }).id ?? acceptRequestId(req.headers[REQUEST_ID_HEADER]);
}
