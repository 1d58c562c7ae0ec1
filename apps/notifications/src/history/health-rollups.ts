import { Injectable } from '@nestjs/common';
import { HealthHistoryRepository } from './health-history.repository';
import { HealthRollup, type HealthTier, ROLLUP_TIERS, bucketStart } from './health-tiers';

/** Rounds still being written when their hour closes land within this long; a bucket is rolled up after it. */
export const ROLLUP_GRACE_MS = 60_000;
/** Buckets one run rolls up per tier at most (a janitor that was down catches up over a few runs). */
const MAX_BUCKETS_PER_RUN = 48;
/** A bucket is read from the tier below in pages of this many points (an hour of 10k wallets' rounds is millions). */
const PAGE = 20_000;
/** Roll-up points written per statement. */
const WRITE_CHUNK = 5000;

/**
 * Makes the roll-up tiers from the tier below, bucket by bucket once a bucket has closed, and marks how far each
 * got (ADR 024). Idempotent: a roll-up point has the id of its (bucket, wallet, pool), so a run repeated after a
 * crash adds nothing twice. Retention is the store's: each point carries its expiry in its TTL field.
 */
@Injectable()
export class HealthRollups {
  /** Points read per page (a test pages through a bucket with a few). */
  pageSize = PAGE;

  constructor(private readonly health: HealthHistoryRepository) {}

  /** Rolls up every closed bucket not rolled up yet; returns the points written per tier. */
  async rollUp(now: Date): Promise<Record<string, number>> {
    const written: Record<string, number> = {};
    for (const tier of ROLLUP_TIERS) written[tier.resolution] = await this.rollUpTier(tier, now);
    return written;
  }

  private async rollUpTier(tier: HealthTier, now: Date): Promise<number> {
    const size = tier.bucketMs as number;
    const source = tier.source as HealthTier;
    let closed = bucketStart(new Date(now.getTime() - ROLLUP_GRACE_MS), size).getTime();
    if (source.bucketMs) {
      // A tier made of roll-ups waits for them: its bucket is complete once the tier below has rolled it.
      const sourceThrough = await this.health.rolledThrough(source);
      closed = Math.min(closed, bucketStart(sourceThrough ?? new Date(0), size).getTime());
    }
    const oldestKept = bucketStart(new Date(now.getTime() - source.retentionMs), size).getTime();
    const marked = await this.health.rolledThrough(tier);
    let start =
      marked?.getTime() ?? bucketStart((await this.health.oldest(source)) ?? new Date(closed), size).getTime();
    start = Math.max(start, oldestKept);
    let written = 0;
    for (let buckets = 0; start < closed && buckets < MAX_BUCKETS_PER_RUN; buckets += 1) {
      const points = (await this.bucketOf(tier, start)).result();
      for (let i = 0; i < points.length; i += WRITE_CHUNK) {
        written += await this.health.add(tier, points.slice(i, i + WRITE_CHUNK));
      }
      start += size;
      await this.health.markRolled(tier, new Date(start));
    }
    // A first run with nothing closed to roll up still marks where it starts: later runs read the mark, not the
    // tier below's oldest point (a scan).
    if (!marked && written === 0) await this.health.markRolled(tier, new Date(start));
    return written;
  }

  /**
   * One bucket rolled up from the tier below, read oldest first a page at a time. A page starts at the last one's
   * latest time again, so points sharing it are not skipped; adding a point twice changes nothing (worst of, union).
   */
  private async bucketOf(tier: HealthTier, start: number): Promise<HealthRollup> {
    const rollup = new HealthRollup(tier);
    const end = new Date(start + (tier.bucketMs as number));
    for (let cursor = start; ; ) {
      const page = await this.health.page(tier.source as HealthTier, new Date(cursor), end, this.pageSize);
      rollup.add(page);
      if (page.length < this.pageSize) return rollup;
      const last = page[page.length - 1].at.getTime();
      cursor = last > cursor ? last : last + 1;
    }
  }
}
