import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { requestIdOf } from '../logging/request-context';
import { renderError } from './envelope';

const logger = new Logger('ErrorEnvelope');

/** Writes the envelope for `error`. If the answer has already begun, the connection is cut instead. */
export function sendError(error: unknown, req: Request, res: Response): void {
  const rendered = renderError(error, requestIdOf(req));
  if (rendered.unexpected) {
    logger.error({ err: error, requestId: rendered.body.requestId }, 'unexpected error');
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(rendered.status).set(rendered.headers).json(rendered.body);
}

/** The one global filter: every error thrown in a route, guard, pipe or interceptor leaves as the envelope. */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(exception, http.getRequest<Request>(), http.getResponse<Response>());
  }
}

/** The same for errors raised by Express middleware before Nest's router (body parsing, the proxy). */
export function expressErrorHandler(error: unknown, req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent && res.writableEnded) return next(error);
  sendError(error, req, res);
}
