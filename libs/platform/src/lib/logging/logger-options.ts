import type { IncomingMessage, ServerResponse } from 'node:http';
import pino from 'pino';
import { HttpLogger, pinoHttp } from 'pino-http';
import { requestIdOf } from './request-context';
import { REDACTED, SECRET_HEADERS, SecretScrubber, redactSecrets } from './redaction';

export interface LoggingOptions {
  appName: string;
  level: string;
  /** Secret setting values to scrub from every line. */
  secrets: readonly string[];
  /** Where lines go; stdout unless a test captures them. */
  destination?: NodeJS.WritableStream;
}

const QUIET_PATHS = ['/health/live', '/health/ready', '/health', '/metrics'];

/**
 * The app's HTTP logger: JSON lines, request ids, redaction at three depths (header paths, secret-named keys at any
 * depth, known secret values anywhere in the line). It is mounted as the first Express middleware so that requests
 * answered before Nest's router (proxied calls, body-parser errors) are logged too; nestjs-pino's `Logger` is
 * handed the same pino instance for everything logged outside a request.
 */
export function createHttpLogger(options: LoggingOptions): HttpLogger {
  const scrubber = new SecretScrubber(options.secrets, options.destination ?? process.stdout);
  const httpLogger = pinoHttp<IncomingMessage, ServerResponse, never>(
    {
      level: options.level,
      base: { app: options.appName, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label: string) => ({ level: label }),
        log: (object: Record<string, unknown>) => redactSecrets(object) as Record<string, unknown>,
      },
      redact: {
        paths: [
          ...SECRET_HEADERS.map((header) => `req.headers["${header}"]`),
          ...SECRET_HEADERS.map((header) => `res.headers["${header}"]`),
        ],
        censor: REDACTED,
      },
      genReqId: (req: IncomingMessage) => requestIdOf(req as Parameters<typeof requestIdOf>[0]),
      customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
        error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
      autoLogging: { ignore: (req: IncomingMessage) => QUIET_PATHS.includes((req.url ?? '').split('?')[0]) },
      serializers: {
        req: (req: { id: string; method: string; url: string; headers: Record<string, unknown> }) => ({
          id: req.id,
          method: req.method,
          url: req.url,
          userAgent: req.headers['user-agent'],
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    },
    scrubber,
  );
  return httpLogger;
}
