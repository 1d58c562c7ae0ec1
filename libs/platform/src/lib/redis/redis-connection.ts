import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import type { RedisSettings } from '../config/app-config';
import { RedisClient, redisOptions } from './redis-options';

export { RedisClient, redisOptions };

/** A client that logs connection trouble once per outage instead of once per retry. */
export function createRedisConnection(settings: RedisSettings, connectionName: string): RedisClient {
  const logger = new Logger(`Redis:${connectionName}`);
  const client = new Redis(redisOptions(settings, connectionName));
  let down = false;
  client.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn(`Redis unreachable: ${error.message}`);
  });
  client.on('ready', () => {
    if (down) logger.log('Redis reachable again');
    down = false;
  });
  return client;
}

export interface FailFastRedisOptions {
  connectionName: string;
  /** A command that has no answer after this long fails. */
  commandTimeoutMs: number;
}

/**
 * A client for callers that would rather decide without Redis than wait for it (the gateway's rate limiter): it
 * never queues or retries a command, so while Redis is disconnected a command fails at once and one slower than
 * `commandTimeoutMs` fails then. It keeps reconnecting in the background. Errors are not logged here: the caller
 * reports outages (without a listener ioredis would print every reconnect attempt).
 */
export function createFailFastRedisConnection(settings: RedisSettings, options: FailFastRedisOptions): RedisClient {
  const client = new Redis({
    ...redisOptions(settings, options.connectionName),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: 1000,
    // How long closing waits for a socket that already died (ioredis keeps the process alive that long).
    disconnectTimeout: 200,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  client.on('error', () => undefined);
  return client;
}

/**
 * Closes a client politely and waits until its connection has ended; cuts it if Redis does not answer in 1 s.
 */
export async function closeRedisConnection(client: RedisClient): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    // Never connected, or between retries: stop retrying; there is no connection to wait for.
    client.disconnect();
    return;
  }
  const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.quit().then(() => ended),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('quit timed out')), 1000);
      }),
    ]);
  } catch {
    client.disconnect();
  } finally {
    clearTimeout(timer);
  }
}
