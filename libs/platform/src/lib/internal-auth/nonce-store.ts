import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { Gauge, type Registry } from 'prom-client';

/** What claiming a nonce found: `fresh` (first use: the call may proceed) or `replayed` (seen before: refuse). */
export type NonceClaim = 'fresh' | 'replayed';

/** The nonces of signed internal calls already accepted, each kept while its signature is inside the clock window. */
export interface NonceStore {
  /** Claims `nonce`, whose signature stops being accepted at `validUntil` (epoch ms). */
  claim(nonce: string, validUntil: number): Promise<NonceClaim>;
}

/**
 * Nonces one replica holds before it says so (a warning and `internal_auth_nonce_store_crowded 1`): about 8,000
 * signed calls a second over the 60 s window. Not a limit: only calls signed with the internal token add nonces, so
 * what is held is the window times the rate the gateway sends, and every one of them is kept.
 */
export const CROWDED_NONCES = 500_000;

/**
 * Nonces in process, grouped by the moment their signature leaves the clock window. A replay carries the same
 * signed timestamp, so it lands in the same group; a group is dropped whole once its moment has passed. The store
 * is sized by the traffic (window x rate), never by refusing: a nonce is forgotten only once its signature can no
 * longer be accepted, so no replay inside the window passes, whatever the rate. Past `crowdedAt` it logs once and
 * raises its `crowded` flag (the metric), and lowers it once back under half.
 */
export class MemoryNonceStore implements NonceStore {
  private readonly logger = new Logger('InternalAuth');
  private readonly groups = new Map<number, Set<string>>();
  private entries = 0;
  private prunedAt = 0;
  private crowdedFlag = false;

  constructor(
    private readonly crowdedAt = CROWDED_NONCES,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries;
  }

  /** True while more than `crowdedAt` nonces are held (until back under half of it). */
  get crowded(): boolean {
    return this.crowdedFlag;
  }

  claim(nonce: string, validUntil: number): Promise<NonceClaim> {
    return Promise.resolve(this.claimNow(nonce, validUntil));
  }

  /** The synchronous claim (the Redis store's fallback uses it too). */
  claimNow(nonce: string, validUntil: number): NonceClaim {
    this.prune();
    let group = this.groups.get(validUntil);
    if (group?.has(nonce)) return 'replayed';
    if (!group) {
      group = new Set();
      this.groups.set(validUntil, group);
    }
    group.add(nonce);
    this.entries += 1;
    if (!this.crowdedFlag && this.entries > this.crowdedAt) {
      this.crowdedFlag = true;
      this.logger.warn(
        `holding ${this.entries} nonces of signed calls (more than ${this.crowdedAt}): memory grows with the rate, ` +
          'every call is still checked and none is refused for it',
      );
    }
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
    if (this.crowdedFlag && this.entries <= this.crowdedAt / 2) {
      this.crowdedFlag = false;
      this.logger.log(`holding ${this.entries} nonces of signed calls again: no longer crowded`);
    }
  }
}

/**
 * `internal_auth_nonces_held` (nonces this replica holds in process: all of them without Redis, those claimed
 * during a Redis outage with it) and `internal_auth_nonce_store_crowded` (1 while more than `CROWDED_NONCES`).
 */
export function registerNonceMetrics(registry: Registry, store: MemoryNonceStore): void {
  new Gauge({
    name: 'internal_auth_nonces_held',
    help: 'Nonces of signed calls this replica holds in process',
    registers: [registry],
    collect() {
      this.set(store.size);
    },
  });
  new Gauge({
    name: 'internal_auth_nonce_store_crowded',
    help: '1 while the in-process nonce store holds more than it expects (memory grows; nothing is refused)',
    registers: [registry],
    collect() {
      this.set(store.crowded ? 1 : 0);
    },
  });
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
    /** Decides while Redis does not answer (public for its metrics). */
    readonly fallback: MemoryNonceStore = new MemoryNonceStore(),
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
