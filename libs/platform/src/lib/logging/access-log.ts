import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/** Probes and scrapers: answered often, never worth a line. */
const QUIET_PATHS = new Set(['/health/live', '/health/ready', '/health', '/metrics']);

/**
 * `onResponse` hook: one line per answered request, `info` below 400, `warn` for 4xx, `error` for 5xx, with the
 * request id, method, URL, user agent, status and milliseconds. Nothing is built when the level is off.
 */
export function accessLog(logger: Logger) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    logAccess(
      logger,
      request.id,
      request.method,
      request.url,
      request.headers['user-agent'],
      reply.statusCode,
      reply.elapsedTime,
    );
    done();
  };
}

/**
 * The access line of one answered request (the hook's, and the gateway's for the requests it forwards outside
 * Fastify): `elapsedMs` from the request's arrival to its answer. Builds nothing when the level is off.
 */
export function logAccess(
  logger: Logger,
  id: string,
  method: string,
  url: string,
  userAgent: string | undefined,
  status: number,
  elapsedMs: number,
): void {
  const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
  if (!logger.isLevelEnabled(level) || QUIET_PATHS.has(url.split('?')[0])) return;
  logger[level](
    {
      requestId: id,
      req: { id, method, url, userAgent },
      res: { statusCode: status },
      responseTime: Math.round(elapsedMs * 10) / 10,
    },
    status >= 500 ? 'request errored' : 'request completed',
  );
}
