import { Injectable } from '@nestjs/common';
import { type Collection, type CollectionDefinition, DocumentStore } from '@rp/persistence';

interface LaneLease {
  /** The lane's account address. */
  id: string;
  leasedUntil: Date;
  holder: string;
}

const LANES: CollectionDefinition = { name: 'settlement_lanes' };
const FREE = new Date(0);

/**
 * Leases of settlement lanes, shared by every replica through the database: a lane settles one payment at a time
 * (one sequence number), and is held until that settlement can no longer land. A lease that outlives its holder (a
 * crash) simply runs out.
 */
@Injectable()
export class SettlementLaneRepository {
  private collection?: Promise<Collection<LaneLease>>;

  constructor(private readonly store: DocumentStore) {}

  private leases(): Promise<Collection<LaneLease>> {
    this.collection ??= this.store.collection<LaneLease>(LANES);
    return this.collection;
  }

  /** Makes sure every lane has a lease record (free unless held). */
  async register(lanes: readonly string[]): Promise<void> {
    const leases = await this.leases();
    for (const id of lanes) {
      await leases.updateOne({ id }, { setOnInsert: { leasedUntil: FREE, holder: '' } }, { upsert: true });
    }
  }

  /** Takes the lane until `until` if it is free now; true when this holder got it. */
  async tryLease(id: string, holder: string, until: Date, now = new Date()): Promise<boolean> {
    const result = await (
      await this.leases()
    ).updateOne({ id, leasedUntil: { $lte: now } }, { set: { leasedUntil: until, holder } });
    return result.matched;
  }

  /** Keeps a held lane until `until` (its settlement's time bound). */
  async extend(id: string, holder: string, until: Date): Promise<void> {
    await (await this.leases()).updateOne({ id, holder }, { set: { leasedUntil: until } });
  }

  async release(id: string, holder: string): Promise<void> {
    await (await this.leases()).updateOne({ id, holder }, { set: { leasedUntil: FREE, holder: '' } });
  }
}
