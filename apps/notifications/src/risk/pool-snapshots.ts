import { Injectable } from '@nestjs/common';
import type { BlendPool, OraclePrices } from '@rp/ledger';
import { RmsLedger } from './rms-ledger';

/** A pool's config and reserves (accrued to when they were read) and its oracle's prices, at one ledger. */
export interface PoolSnapshot {
  readonly pool: BlendPool;
  readonly prices: OraclePrices;
  readonly ledger: number;
  /** The close time (unix seconds) of the newest ledger when the pool was read: oracle prices' age is judged by it. */
  readonly closeTime: bigint | undefined;
}

interface Cached {
  readonly ledger: number;
  readonly loadedAt: number;
  readonly snapshot: Promise<PoolSnapshot>;
}

/** Reserves accrue by the second: a read is reused at most this long even when no ledger closed. */
const REUSE_MS = 5_000;

/**
 * Pools and prices cannot change without a new ledger, so one read per pool and ledger serves every request that
 * needs it (requests arriving together share the read in flight). A failed read is forgotten at once.
 */
@Injectable()
export class PoolSnapshots {
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly ledger: RmsLedger) {}

  at(poolId: string, ledger: number): Promise<PoolSnapshot> {
    const cached = this.cache.get(poolId);
    if (cached && cached.ledger >= ledger && Date.now() - cached.loadedAt < REUSE_MS) return cached.snapshot;
    const snapshot = this.load(poolId, ledger);
    const entry = { ledger, loadedAt: Date.now(), snapshot };
    this.cache.set(poolId, entry);
    snapshot.catch(() => {
      if (this.cache.get(poolId) === entry) this.cache.delete(poolId);
    });
    return snapshot;
  }

  private async load(poolId: string, ledger: number): Promise<PoolSnapshot> {
    const reader = await this.ledger.poolReader();
    const [pool, latest] = await Promise.all([reader.loadPool(poolId), this.ledger.latestClose()]);
    const prices = await reader.loadPrices(pool);
    return { pool, prices, ledger: Math.max(ledger, pool.latestLedger), closeTime: latest.closeTime };
  }
}
