import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import type { RedisSettings } from '../config/app-config';
import { ReadinessCheck } from '../health/readiness-check';
import { closeRedisConnection, createRedisConnection } from './redis-connection';

export const REDIS_SETTINGS = Symbol('rp:redis-settings');

@Injectable()
export class RedisReadiness implements ReadinessCheck {
  readonly name = 'redis';

  constructor(private readonly redis: Redis) {}

  async check(): Promise<void> {
    if (this.redis.status !== 'ready') throw new Error(`connection is ${this.redis.status}`);
    await this.redis.ping();
  }
}

@Injectable()
class RedisShutdown implements OnApplicationShutdown {
  constructor(private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await closeRedisConnection(this.redis);
  }
}

/** The app's shared ioredis client, injectable as `Redis`, with its readiness check; closed on shutdown. */
@Global()
@Module({})
export class RedisModule {
  static forRoot(settings: RedisSettings, connectionName: string): DynamicModule {
    return {
      module: RedisModule,
      providers: [
        { provide: REDIS_SETTINGS, useValue: settings },
        { provide: Redis, useFactory: () => createRedisConnection(settings, connectionName) },
        RedisReadiness,
        RedisShutdown,
      ],
      exports: [Redis, RedisReadiness, REDIS_SETTINGS],
    };
  }
}

export function InjectRedisSettings(): ParameterDecorator {
  return Inject(REDIS_SETTINGS);
}
