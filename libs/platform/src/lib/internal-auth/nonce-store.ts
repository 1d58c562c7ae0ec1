import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';

/**
 * What claiming a nonce found: `fresh` (first use: the call may proceed), `replayed` (seen before: refuse), or
 * `full` (an in-process store at its bound: it cannot remember one more, so it cannot prove this is no replay).
 */
export type NonceClaim = 'fresh' | 'replayed' | 'full';

/** The nonces of signed internal calls already accepted, each kept while its signature is inside the clock window. */
export interface NonceStore {
  /** Claims `nonce`, whose signature stops being accepted at `validUntil` (epoch ms). */
  claim(nonce: string, validUntil: number): Promise<NonceClaim>;
}

/** Nonces one replica remembers at most: about 8,000 signed calls a second, each kept for the 60 s window. */
export const MAX_IN_PROCESS_NONCES = 500_000;

/**
 * Nonces in process, grouped by the moment their signature leaves the clock window. A replay carries the same
 * signed timestamp, so it lands in the same group; a group is dropped whole once its moment has passed. At most
 * `maxEntries` are held: past that, claims answer `full` (refused) instead of forgetting a nonce that a replay
 * could then reuse.
 */
export class MemoryNonceStore implements NonceStore {
  private readonly groups = new Map<number, Set<string>>();
  private entries = 0;
  private prunedAt = 0;

  constructor(
    private readonly maxEntries = MAX_IN_PROCESS_NONCES,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries;
  }

  claim(nonce: string, validUntil: number): Promise<NonceClaim> {
    return Promise.resolve(this.claimNow(nonce, validUntil));
  }

  /** The synchronous claim (the Redis store's fallback uses it too). */
  claimNow(nonce: string, validUntil: number): NonceClaim {
    this.prune();
    let group = this.groups.get(validUntil);
    if (group?.has(nonce)) return 'replayed';
    if (this.entries >= this.maxEntries) return 'full';
    if (!group) {
      group = new Set();
      this.groups.set(validUntil, group);
    }
    group.add(nonce);
    this.entries += 1;
    return 'fresh';
  }

  /** Drops the groups whose signatures have left the window; at most every 250 ms (groups are per second). */
  private prune(): void {
    const now = this.now();
    if (now - this.prunedAt < 250) return;
    this.prunedAt = now;
    for (const [validUntil, group] of this.groups) {
      if (validUntil >= now) continue;
      this.entries -= group.size;
      this.groups.delete(validUntil);
    }
  }
}

/** A Redis answer slower than this counts as Redis not answering: the replica checks nonces alone meanwhile. */
const REDIS_CLAIM_TIMEOUT_MS = 1000;

/**
 * Nonces in Redis (`SET key 1 NX PX <ms>`), so every replica of a service refuses a request another replica already
 * served. While Redis is not connected, errs or is slower than a second, this replica decides with its in-process
 * store (never unchecked); the outage is logged once at its start and once at its end.
 */
export class RedisNonceStore implements NonceStore {
  private readonly logger = new Logger('InternalAuth');
  private degraded = false;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly fallback: MemoryNonceStore = new MemoryNonceStore(),
    private readonly now: () => number = Date.now,
  ) {}

  async claim(nonce: string, validUntil: number): Promise<NonceClaim> {
    const ttl = Math.max(1, validUntil - this.now());
    if (this.redis.status !== 'ready') return this.degrade(`connection is ${this.redis.status}`, nonce, validUntil);
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = await Promise.race([
        this.redis.set(`${this.keyPrefix}${nonce}`, '1', 'PX', ttl, 'NX'),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer in ${REDIS_CLAIM_TIMEOUT_MS} ms`)),
            REDIS_CLAIM_TIMEOUT_MS,
          );
        }),
      ]);
      if (this.degraded) {
        this.degraded = false;
        this.logger.log('Redis answers again; nonces of signed calls are shared by every replica again');
      }
      return answer === 'OK' ? 'fresh' : 'replayed';
    } catch (error) {
      return this.degrade(error instanceof Error ? error.message : String(error), nonce, validUntil);
    } finally {
      clearTimeout(timer);
    }
  }

  private degrade(reason: string, nonce: string, validUntil: number): NonceClaim {
    if (!this.degraded) {
      this.degraded = true;
      this.logger.warn(`Redis does not answer (${reason}); nonces of signed calls are checked by this replica alone`);
    }
    return this.fallback.claimNow(nonce, validUntil);
  }
}
