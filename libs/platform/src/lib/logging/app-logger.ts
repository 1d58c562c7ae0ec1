import pino, { Logger } from 'pino';
import { currentRequestId } from './request-context';
import { SecretScrubber, redactSecrets } from './redaction';

export interface LoggingOptions {
  appName: string;
  level: string;
  /** Secret setting values to scrub from every line. */
  secrets: readonly string[];
  /** Where lines go; stdout unless a test captures them. */
  destination?: NodeJS.WritableStream;
}

/**
 * The app's one pino logger: JSON lines with the app name, and the request id of the request being served (from the
 * async context) on every line written while serving it. Secrets are kept out at two depths: secret-named keys at
 * any depth of a logged object are replaced, and the values of the app's secret settings are scrubbed from the
 * finished line wherever they appear (a message, an error text, a stack).
 */
export function createAppLogger(options: LoggingOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { app: options.appName, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label: string) => ({ level: label }),
        log: (object: Record<string, unknown>) => redactSecrets(object) as Record<string, unknown>,
      },
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { requestId } : {};
      },
    },
    new SecretScrubber(options.secrets, options.destination ?? process.stdout),
  );
}
