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
    const status = reply.statusCode;
    const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
    if (logger.isLevelEnabled(level) && !QUIET_PATHS.has(request.url.split('?')[0])) {
      logger[level](
        {
          requestId: request.id,
          req: { id: request.id, method: request.method, url: request.url, userAgent: request.headers['user-agent'] },
          res: { statusCode: status },
          responseTime: Math.round(reply.elapsedTime * 10) / 10,
        },
        status >= 500 ? 'request errored' : 'request completed',
      );
    }
    done();
  };
}
