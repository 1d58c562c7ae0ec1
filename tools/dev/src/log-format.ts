const LEVELS: Record<string, string> = {
  trace: 'trace',
  debug: 'debug',
  info: 'info ',
  warn: 'WARN ',
  error: 'ERROR',
  fatal: 'FATAL',
};

interface LogLine {
  level?: string;
  time?: string;
  msg?: string;
  context?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  err?: { message?: string; stack?: string };
}

/** One app log line for a person: time, level, message, and the request for access lines. Not JSON: as is. */
export function formatLogLine(line: string): string {
  if (!line.startsWith('{')) return line;
  let entry: LogLine;
  try {
    entry = JSON.parse(line) as LogLine;
  } catch {
    return line;
  }
  const time = entry.time ? entry.time.slice(11, 19) : '';
  const level = LEVELS[entry.level ?? ''] ?? entry.level ?? '';
  const request =
    entry.req && entry.res
      ? `${entry.req.method} ${entry.req.url} -> ${entry.res.statusCode} (${entry.responseTime} ms)`
      : '';
  const message = request || entry.msg || '';
  const context = entry.context && !request ? ` [${entry.context}]` : '';
  const error = entry.err?.stack ? `\n${entry.err.stack}` : entry.err?.message ? ` (${entry.err.message})` : '';
  return `${time} ${level} ${message}${context}${error}`;
}
