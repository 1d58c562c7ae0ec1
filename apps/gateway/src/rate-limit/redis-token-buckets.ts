import { createHash } from 'node:crypto';
import Redis from 'ioredis';
import { BucketDecision, BucketLimits } from './token-bucket';
import { TOKEN_BUCKET_SCRIPT } from './token-bucket.script';

const SCRIPT_SHA = createHash('sha1').update(TOKEN_BUCKET_SCRIPT).digest('hex');

/** Buckets in Redis, shared by every gateway replica: `<prefix><bucketId>` hashes driven by one script. */
export class RedisTokenBuckets {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix = 'rl:',
  ) {}

  async take(bucketId: string, limits: BucketLimits, cost = 1): Promise<BucketDecision> {
    const args = [`${this.keyPrefix}${bucketId}`, limits.capacity, limits.refillPerMinute, cost] as const;
    let reply: unknown;
    try {
      reply = await this.redis.evalsha(SCRIPT_SHA, 1, ...args);
    } catch (error) {
      // First use on this Redis (or after a restart or SCRIPT FLUSH): EVAL runs it and caches it for EVALSHA.
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      reply = await this.redis.eval(TOKEN_BUCKET_SCRIPT, 1, ...args);
    }
    if (!Array.isArray(reply) || reply.length !== 4 || !reply.every((n) => typeof n === 'number')) {
      throw new Error(`unexpected token bucket reply ${JSON.stringify(reply)}`);
    }
    const [allowed, remaining, msUntilOne, msUntilFull] = reply as number[];
    return { allowed: allowed === 1, limit: limits.capacity, remaining, msUntilOne, msUntilFull };
  }
}
