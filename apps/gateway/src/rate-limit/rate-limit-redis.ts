import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { RedisClient, RedisSettings, closeRedisConnection, createFailFastRedisConnection } from '@rp/platform';
import { RATE_LIMIT_REDIS } from './rate-limiter';

/**
 * The rate limiter's own Redis client. Unlike the shared client it never queues or retries a command: while Redis
 * is disconnected a command fails at once, and one slower than `timeoutMs` fails then, so the in-process bucket
 * decides and no request waits on Redis. It keeps reconnecting in the background; the limiter reports outages.
 */
export function createRateLimitRedis(settings: RedisSettings, timeoutMs: number): RedisClient {
  return createFailFastRedisConnection(settings, { connectionName: 'gateway-rate-limit', commandTimeoutMs: timeoutMs });
}

/** Resolves once the client is ready or `timeoutMs` has passed, whichever is first; never rejects. */
export function settled(client: RedisClient, timeoutMs: number): Promise<void> {
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
  constructor(@Inject(RATE_LIMIT_REDIS) private readonly redis: RedisClient) {}

  async onApplicationShutdown(): Promise<void> {
    await closeRedisConnection(this.redis);
  }
}
