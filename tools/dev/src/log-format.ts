import { prettyFactory } from 'pino-pretty';

interface LogLine {
  msg?: string;
  context?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string; stack?: string };
}

export interface LogFormatOptions {
  /** ANSI colours by level; the launcher sets it only when its output is a terminal. */
  colorize: boolean;
}

/** The message of one line: the request for access lines, else the message with its context, and an error's stack. */
function messageOf(entry: LogLine): string {
  if (entry.req && entry.res) {
    return `${entry.req.method} ${entry.req.url} -> ${entry.res.statusCode} (${entry.responseTime} ms)`;
  }
  const context = entry.context ? ` [${entry.context}]` : '';
  const error = entry.err?.stack ? `\n${entry.err.stack}` : entry.err?.message ? ` (${entry.err.message})` : '';
  return `${entry.msg ?? ''}${context}${error}`;
}

/**
 * The app log lines for a person (pino-pretty): `[HH:MM:ss] LEVEL: message` in UTC, the request for access lines, an
 * error's stack below its line, the other fields left out (`DEV_LOG_FORMAT=json` shows them). A line that is not JSON
 * (a configuration error on stderr) comes back as it is.
 */
export function createLogFormatter(options: LogFormatOptions): (line: string) => string {
  const pretty = prettyFactory({
    colorize: options.colorize,
    translateTime: 'HH:MM:ss',
    hideObject: true,
    ignore: 'pid,hostname',
    messageFormat: (log) => messageOf(log as LogLine),
  });
  return (line) => pretty(line).replace(/\n$/, '');
}

const plain = createLogFormatter({ colorize: false });

/** One app log line without colours (see `createLogFormatter`). */
export function formatLogLine(line: string): string {
  return plain(line);
}
