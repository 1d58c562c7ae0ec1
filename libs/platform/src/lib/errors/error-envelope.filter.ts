import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { renderError } from './envelope';

const logger = new Logger('ErrorEnvelope');

/** Writes the envelope for `error`. If the answer has already begun, the connection is cut instead. */
export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const rendered = renderError(error, request.id);
  if (rendered.unexpected) {
    logger.error({ err: error, requestId: rendered.body.requestId }, 'unexpected error');
  }
  if (reply.sent || reply.raw.headersSent) {
    reply.raw.destroy();
    return;
  }
  void reply
    .code(rendered.status)
    .headers(rendered.headers)
    .type('application/json; charset=utf-8')
    .send(rendered.body);
}

/** The one global filter: every error thrown in a route, guard, pipe or interceptor leaves as the envelope. */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}
