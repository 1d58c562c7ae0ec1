import type { LoggerService } from '@nestjs/common';
import type { Logger, LevelWithSilent } from 'pino';

type Level = Exclude<LevelWithSilent, 'silent'>;

/**
 * Nest's `LoggerService` over the app's pino logger. Nest's `Logger` calls it as `log(message, ...params, context)`;
 * a first argument that is an object is merged into the line (`logger.log({ txHash }, 'payment settled')`), an
 * `Error` becomes `err`, and Nest's own `error(message, stack, context)` keeps its stack.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const rest = [...params];
    // Nest appends the context last (and an `undefined` placeholder when there were no params).
    const context = rest.length > 0 && typeof rest[rest.length - 1] === 'string' ? rest.pop() : undefined;
    while (rest.length > 0 && rest[rest.length - 1] === undefined) rest.pop();
    const fields: Record<string, unknown> = context ? { context } : {};
    if (message instanceof Error) {
      this.logger[level]({ ...fields, err: message }, message.message);
      return;
    }
    if (typeof message === 'object' && message !== null) {
      const text = rest.find((param): param is string => typeof param === 'string');
      this.logger[level]({ ...fields, ...(message as Record<string, unknown>) }, text);
      return;
    }
    // Nest's exception handler calls error(message, stack, context).
    if (level === 'error' && typeof rest[0] === 'string' && rest[0].includes('\n    at ')) {
      this.logger.error({ ...fields, stack: rest[0] }, String(message));
      return;
    }
    this.logger[level](fields, String(message));
  }
}
