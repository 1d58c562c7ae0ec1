import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  ValidationArguments,
  ValidatorConstraint,
  ValidatorConstraintInterface,
  Validate,
  ValidateIf,
} from 'class-validator';
import { IsDuration, IsPortNumber, RequiredInProduction, Secret } from './setting-decorators';

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
 * A class the setting mixins below can extend. TypeScript requires a mixin's base to be constructible with
 * `any[]` (TS2545); the arguments are never used (config classes are built with `new Config()`).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SettingsClass<T extends AppConfig = AppConfig> = new (...args: any[]) => T;

/**
 * An app that takes part in the internal trust: the gateway signs what it forwards with `INTERNAL_TOKEN`, and the
 * services check it. With `NODE_ENV=production` the token is required: a service without it would trust any
 * identity header on the network.
 */
export class InternalAuthConfig extends AppConfig {
  /**
   * Shared secret of the gateway and the services: the gateway signs the internal identity headers with it, and a
   * service that has it refuses every call not signed with it. Unset: identity headers are trusted unsigned
   * (development and tests only).
   */
  @ValidateIf((config: InternalAuthConfig) => config.INTERNAL_TOKEN !== undefined || config.NODE_ENV === 'production')
  @IsString()
  @MinLength(16, { message: '$property must be at least 16 characters' })
  @Secret()
  // Last, so it is checked first: an unset token is reported as missing, not as too short.
  @RequiredInProduction()
  INTERNAL_TOKEN?: string;
}

/**
 * Adds the Redis settings (`REDIS_URL`, or `REDIS_HOST`/`REDIS_PORT`/`REDIS_PASSWORD`/`REDIS_DB`) to a config class.
 * Only apps that use Redis declare them.
 */
export function withRedis<B extends SettingsClass>(Base: B) {
  class RedisConfig extends Base {
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
  return RedisConfig;
}

/** A service with Redis behind (or at) the gateway: the gateway, txb. */
export class ServiceConfig extends withRedis(InternalAuthConfig) {}

export const DATABASE_DRIVERS = ['mongodb', 'postgres', 'sqlite'] as const;

/** The `DATABASE_*` parts that locate a database server; an embedded SQLite file has none of them. */
const SERVER_PARTS = ['DATABASE_HOST', 'DATABASE_PORT', 'DATABASE_USER', 'DATABASE_PASSWORD'] as const;

@ValidatorConstraint({ name: 'embeddedDriverTakesNoServer' })
class EmbeddedDriverTakesNoServer implements ValidatorConstraintInterface {
  validate(driver: unknown, args: ValidationArguments): boolean {
    const settings = args.object as Partial<Record<(typeof SERVER_PARTS)[number], unknown>>;
    return driver !== 'sqlite' || SERVER_PARTS.every((part) => settings[part] === undefined);
  }

  defaultMessage(): string {
    return `$property sqlite is a local file: ${SERVER_PARTS.join(', ')} must be unset`;
  }
}

/**
 * An app with a database. `DATABASE_URL` picks the driver by scheme (mongodb://, postgres://, sqlite://<file>);
 * or the parts `DATABASE_DRIVER`/`DATABASE_HOST`/`DATABASE_PORT`/`DATABASE_USER`/`DATABASE_PASSWORD`/`DATABASE_NAME`.
 * With neither, the database is embedded (SQLite, the file `.data/<app>.sqlite`).
 */
export function withDatabase<B extends SettingsClass>(Base: B) {
  class DatabaseConfig extends Base {
    @IsOptional()
    @Matches(/^(mongodb(\+srv)?|postgres(ql)?|sqlite):\/\/\S+$/, {
      message: '$property must start with mongodb://, mongodb+srv://, postgres://, postgresql:// or sqlite://',
    })
    DATABASE_URL?: string;

    /**
     * Driver of the `DATABASE_*` parts (not of `DATABASE_URL`, whose scheme decides); mongodb when unset. `sqlite`
     * takes only `DATABASE_NAME`, the file `.data/<name>.sqlite`.
     */
    @IsOptional()
    @IsIn(DATABASE_DRIVERS, { message: `$property must be one of ${DATABASE_DRIVERS.join(', ')}` })
    @Validate(EmbeddedDriverTakesNoServer)
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
      if (this.DATABASE_DRIVER === 'sqlite') {
        return this.DATABASE_NAME ? `sqlite://.data/${this.DATABASE_NAME}.sqlite` : undefined;
      }
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
  return DatabaseConfig;
}

/** A service with a database and Redis: notifications. */
export class StatefulServiceConfig extends withDatabase(ServiceConfig) {}

/** A service with a database and no Redis: subscription. */
export class DatabaseServiceConfig extends withDatabase(InternalAuthConfig) {}
