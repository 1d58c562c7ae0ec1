import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength } from 'class-validator';
import { IsDuration, IsPortNumber, Secret } from './setting-decorators';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Settings every app has: how it listens, logs and stops. Each app overrides `PORT` with its default. */
export class AppConfig {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV = 'development';

  @IsString()
  HOST = '0.0.0.0';

  @IsPortNumber()
  PORT = 3000;

  @IsIn(LOG_LEVELS, { message: `$property must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL = 'info';

  /** Largest accepted request body, in body-parser's notation. */
  @Matches(/^\d+(b|kb|mb)$/i, { message: '$property must look like 100kb or 1mb' })
  BODY_LIMIT = '1mb';

  /** How long a stopping process waits for in-flight work before it exits anyway. */
  @IsDuration(0)
  SHUTDOWN_TIMEOUT_MS = 10_000;
}

export interface RedisSettings {
  url?: string;
  host: string;
  port: number;
  password?: string;
  db: number;
}

/**
 * A service: it uses Redis (`REDIS_URL`, or `REDIS_HOST`/`REDIS_PORT`/`REDIS_PASSWORD`/`REDIS_DB`) and takes calls
 * through the gateway (`INTERNAL_TOKEN`).
 */
export class ServiceConfig extends AppConfig {
  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: '$property must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  @IsOptional()
  @IsString()
  REDIS_HOST?: string = '127.0.0.1';

  @IsPortNumber()
  REDIS_PORT = 6379;

  @IsOptional()
  @IsString()
  @Secret()
  REDIS_PASSWORD?: string;

  @IsInt({ message: '$property must be an integer between 0 and 15' })
  @Min(0, { message: '$property must be an integer between 0 and 15' })
  @Max(15, { message: '$property must be an integer between 0 and 15' })
  REDIS_DB = 0;

  /**
   * Shared secret of the gateway and the services: the gateway signs the internal identity headers with it, and a
   * service that has it refuses every call not signed with it. Unset: identity headers are trusted unsigned
   * (development only).
   */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: '$property must be at least 16 characters' })
  @Secret()
  INTERNAL_TOKEN?: string;

  /** Where Redis is: `REDIS_URL`, else host and port (127.0.0.1:6379 by default). */
  redis(): RedisSettings {
    if (this.REDIS_URL) {
      return { url: this.REDIS_URL, host: '', port: 0, db: this.REDIS_DB, password: this.REDIS_PASSWORD };
    }
    return {
      host: this.REDIS_HOST ?? '127.0.0.1',
      port: this.REDIS_PORT,
      password: this.REDIS_PASSWORD,
      db: this.REDIS_DB,
    };
  }

  /** Where Redis is when one was configured explicitly (`REDIS_URL` or `REDIS_HOST`), else `undefined`. */
  configuredRedis(): RedisSettings | undefined {
    return this.REDIS_URL || this.REDIS_HOST ? this.redis() : undefined;
  }
}

export const DATABASE_DRIVERS = ['mongodb', 'postgres', 'pglite'] as const;

/**
 * An app with a database. `DATABASE_URL` picks the driver by scheme (mongodb://, postgres://, pglite://<dir>);
 * or the parts `DATABASE_DRIVER`/`DATABASE_HOST`/`DATABASE_PORT`/`DATABASE_USER`/`DATABASE_PASSWORD`/`DATABASE_NAME`.
 * With neither, the database is embedded (PGlite under `.data/<app>`).
 */
export class StatefulServiceConfig extends ServiceConfig {
  @IsOptional()
  @Matches(/^(mongodb(\+srv)?|postgres(ql)?|pglite):\/\/\S+$/, {
    message: '$property must start with mongodb://, mongodb+srv://, postgres://, postgresql:// or pglite://',
  })
  DATABASE_URL?: string;

  /** Driver of the `DATABASE_*` parts (not of `DATABASE_URL`, whose scheme decides); mongodb when unset. */
  @IsOptional()
  @IsIn(DATABASE_DRIVERS, { message: `$property must be one of ${DATABASE_DRIVERS.join(', ')}` })
  DATABASE_DRIVER?: string;

  @IsOptional()
  @IsString()
  DATABASE_HOST?: string;

  @IsOptional()
  @IsPortNumber()
  DATABASE_PORT?: number;

  @IsOptional()
  @IsString()
  DATABASE_USER?: string;

  @IsOptional()
  @IsString()
  @Secret()
  DATABASE_PASSWORD?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,63}$/, { message: '$property must be 1-63 letters, digits, _ or -' })
  DATABASE_NAME?: string;

  /** The database URL, or `undefined` for the embedded default. */
  databaseUrl(): string | undefined {
    if (this.DATABASE_URL) return this.DATABASE_URL;
    if (!this.DATABASE_HOST) return undefined;
    const credentials = this.DATABASE_USER
      ? `${encodeURIComponent(this.DATABASE_USER)}${
          this.DATABASE_PASSWORD ? `:${encodeURIComponent(this.DATABASE_PASSWORD)}` : ''
        }@`
      : '';
    const port = this.DATABASE_PORT ? `:${this.DATABASE_PORT}` : '';
    return `${this.DATABASE_DRIVER ?? 'mongodb'}://${credentials}${this.DATABASE_HOST}${port}/${this.DATABASE_NAME ?? ''}`;
  }
}
