import { Injectable } from '@nestjs/common';
import { type Collection, DocumentStore, type Filter } from '@rp/persistence';
import { type HealthPointRecord, type HealthTier, MAX_SERIES_POINTS, type SeriesRange } from './health-tiers';

/** How far a roll-up tier has been made: every bucket before `through` is stored. */
interface RollupMark {
  id: string;
  through: Date;
}

const ROLLUP_MARKS = { name: 'health_rollup_marks' };
/** Most points one read returns (a series holds fewer; several pools share a read). */
const MAX_READ = 8 * MAX_SERIES_POINTS;

/** The health series' tiers and their roll-up marks, in the app's database (any of the three drivers). */
@Injectable()
export class HealthHistoryRepository {
  private readonly opened = new Map<string, Promise<Collection<HealthPointRecord>>>();
  private marks?: Promise<Collection<RollupMark>>;

  constructor(private readonly store: DocumentStore) {}

  private tier(tier: HealthTier): Promise<Collection<HealthPointRecord>> {
    let opened = this.opened.get(tier.collection.name);
    if (!opened) {
      opened = this.store.collection<HealthPointRecord>(tier.collection);
      opened.catch(() => this.opened.delete(tier.collection.name));
      this.opened.set(tier.collection.name, opened);
    }
    return opened;
  }

  private rollupMarks(): Promise<Collection<RollupMark>> {
    this.marks ??= this.store.collection<RollupMark>(ROLLUP_MARKS);
    return this.marks;
  }

  /** One write, whatever the number of points; a point stored before (same id) is skipped. */
  async add(tier: HealthTier, points: readonly HealthPointRecord[]): Promise<number> {
    return points.length === 0 ? 0 : (await this.tier(tier)).insertMany(points);
  }

  /** A wallet's points in [from, to), newest first, at most `MAX_READ`. */
  async between(tier: HealthTier, { walletAddress, poolAddress, from, to }: SeriesRange): Promise<HealthPointRecord[]> {
    const filter: Filter = { walletAddress, at: { $gte: from, $lt: to }, ...(poolAddress && { poolAddress }) };
    return (await this.tier(tier)).find(filter, { sort: { field: 'at', direction: 'desc' }, limit: MAX_READ });
  }

  /** Every position's points in [from, to), oldest first, at most `limit` (a roll-up reads a bucket page by page). */
  async page(tier: HealthTier, from: Date, to: Date, limit: number): Promise<HealthPointRecord[]> {
    return (await this.tier(tier)).find(
      { at: { $gte: from, $lt: to } },
      { sort: { field: 'at', direction: 'asc' }, limit },
    );
  }

  /** The oldest point the tier holds, if any. */
  async oldest(tier: HealthTier): Promise<Date | undefined> {
    return (await (await this.tier(tier)).findOne({}, { sort: { field: 'at', direction: 'asc' } }))?.at;
  }

  async rolledThrough(tier: HealthTier): Promise<Date | undefined> {
    return (await (await this.rollupMarks()).findOne({ id: tier.resolution }))?.through;
  }

  async markRolled(tier: HealthTier, through: Date): Promise<void> {
    await (await this.rollupMarks()).updateOne({ id: tier.resolution }, { set: { through } }, { upsert: true });
  }
}
