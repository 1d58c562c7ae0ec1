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

/**
 * The Redis client of every app, by our name: apps import it from here, never `ioredis` itself (the lint refuses
 * that). It is a type, and the class Nest injects the app's shared client by (`RedisModule`).
 */
export type RedisClient = Redis;
export const RedisClient = Redis;

