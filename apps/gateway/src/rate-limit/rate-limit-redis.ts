import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { RedisSettings, closeRedisConnection, redisOptions } from '@rp/platform';
import Redis from 'ioredis';
import { RATE_LIMIT_REDIS } from './rate-limiter';

/**
 * The rate limiter's own Redis client. Unlike the shared client it never queues or retries a command: while Redis
 * is disconnected a command fails at once, and one slower than `timeoutMs` fails then, so the in-process bucket
 * decides and no request waits on Redis. It keeps reconnecting in the background.
 */
export function createRateLimitRedis(settings: RedisSettings, timeoutMs: number): Redis {
  const client = new Redis({
    ...redisOptions(settings, 'gateway-rate-limit'),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
    connectTimeout: 1000,
    // How long closing waits for a socket that already died (ioredis keeps the process alive that long).
    disconnectTimeout: 200,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  // The limiter reports outages, once each; without a listener ioredis would print every reconnect attempt.
  client.on('error', () => undefined);
  return client;
}

/** Resolves once the client is ready or `timeoutMs` has passed, whichever is first; never rejects. */
export function settled(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    client.once('ready', done);
  });
}

@Injectable()
export class RateLimitRedisShutdown implements OnApplicationShutdown {
  constructor(@Inject(RATE_LIMIT_REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await closeRedisConnection(this.redis);
  }
}
