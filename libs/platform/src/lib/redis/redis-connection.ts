import { Logger } from '@nestjs/common';
import Redis, { RedisOptions } from 'ioredis';
import type { RedisSettings } from '../config/app-config';

/**
 * Connection options shared by every Redis client of an app, BullMQ's included: BullMQ workers need
 * `maxRetriesPerRequest: null`; reconnection backs off up to 2 s and never gives up.
 */
export function redisOptions(settings: RedisSettings, connectionName: string): RedisOptions {
  const base: RedisOptions = {
    connectionName,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    connectTimeout: 5000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  };
  if (settings.url) {
    const url = new URL(settings.url);
    return {
      ...base,
      host: url.hostname,
      port: Number(url.port || 6379),
      username: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? decodeURIComponent(url.password) : settings.password,
      db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : settings.db,
      tls: url.protocol === 'rediss:' ? {} : undefined,
    };
  }
  return { ...base, host: settings.host, port: settings.port, password: settings.password, db: settings.db };
}

/** A client that logs connection trouble once per outage instead of once per retry. */
export function createRedisConnection(settings: RedisSettings, connectionName: string): Redis {
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

/**
 * Closes a client politely and waits until its connection has ended; cuts it if Redis does not answer in 1 s.
 */
export async function closeRedisConnection(client: Redis): Promise<void> {
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
