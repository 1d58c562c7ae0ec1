import type { ConnectionOptions } from 'bullmq';
import type { RedisSettings } from '../config/app-config';
import { redisOptions } from './redis-options';

/**
 * BullMQ's connection for a queue, a worker or a board: the platform's Redis options (`maxRetriesPerRequest: null`,
 * as BullMQ workers need), never an ioredis client built by an app. The one place BullMQ is told how to connect.
 */
export function bullConnection(settings: RedisSettings, name: string): ConnectionOptions {
  return redisOptions(settings, name) as ConnectionOptions;
}
