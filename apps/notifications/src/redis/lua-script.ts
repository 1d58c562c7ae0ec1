import { createHash } from 'node:crypto';
import type { RedisClient } from '@rp/platform';

export interface LuaScript {
  source: string;
  sha: string;
}

export function luaScript(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** EVALSHA, falling back to EVAL once when Redis does not have the script (after a restart). */
export async function runScript(
  redis: RedisClient,
  script: LuaScript,
  keys: string[],
  args: string[],
): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('NOSCRIPT')) throw error;
    return redis.eval(script.source, keys.length, ...keys, ...args);
  }
}
