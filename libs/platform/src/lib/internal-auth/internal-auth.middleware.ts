import { Logger } from '@nestjs/common';
import { ErrorCode } from '@rp/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ApiError } from '../errors/api-error';
import { sendError } from '../errors/error-envelope.filter';
import { attachCallerIdentity } from './caller';
import { INTERNAL_IDENTITY_HEADER, decodeCallerIdentity, verifyInternalRequest } from './internal-signature';

const logger = new Logger('InternalAuth');

/** Probes and scrapers reach a service directly; they carry no signature and learn nothing about a caller. */
export function isUnsignedPath(path: string): boolean {
  return path === '/health' || path.startsWith('/health/') || path === '/metrics';
}

/**
 * With a token: every call but health and metrics must carry the gateway's signature, else 403
 * `INTERNAL_AUTH_REQUIRED`; the signed identity is attached to the request. Without one (development): an
 * `x-rp-identity` header is taken as it comes.
 */
export function internalAuthMiddleware(token: string | undefined): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (isUnsignedPath(req.path)) return next();
    if (!token) {
      const header = req.headers[INTERNAL_IDENTITY_HEADER];
      const identity = typeof header === 'string' ? decodeCallerIdentity(header) : undefined;
      if (identity) attachCallerIdentity(req, identity);
      return next();
    }
    const verified = verifyInternalRequest(token, { method: req.method, path: req.originalUrl, headers: req.headers });
    if (!verified.ok) {
      logger.debug(`refused ${req.method} ${req.path}: ${verified.reason}`);
      sendError(
        new ApiError(403, ErrorCode.INTERNAL_AUTH_REQUIRED, 'This service answers only calls forwarded by the gateway'),
        req,
        res,
      );
      return;
    }
    if (verified.identity) attachCallerIdentity(req, verified.identity);
    next();
  };
}
