import { createHash } from 'node:crypto';
import type { RedisClient } from './redis-options';

/** A Lua script and its SHA-1 (what EVALSHA names it by). */
export interface LuaScript {
  readonly source: string;
  readonly sha: string;
}

export function luaScript(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * Runs `script` by EVALSHA; on first use on this Redis (or after a restart or SCRIPT FLUSH) Redis answers NOSCRIPT
 * and EVAL runs it once, which also caches it for the next EVALSHA. The one loader of the workspace's scripts.
 */
export async function runScript(
  redis: RedisClient,
  script: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(script.source, keys.length, ...keys, ...args);
  }
}
