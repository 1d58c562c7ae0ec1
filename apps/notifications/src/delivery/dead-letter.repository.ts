import { Injectable } from '@nestjs/common';
import { CHANNELS, type Channel } from '@rp/contracts';
import { type Collection, type CollectionDefinition, DocumentStore } from '@rp/persistence';
import type { DeadLetterRecord } from './dead-letter';

export const DEAD_LETTERS: CollectionDefinition = { name: 'notification_dlq', ttl: { field: 'expiresAt' } };

/** The DLQ in the platform database; entries disappear at `expiresAt` (24 h after the failure). */
@Injectable()
export class DeadLetterRepository {
  private collection?: Promise<Collection<DeadLetterRecord>>;

  constructor(private readonly store: DocumentStore) {}

  private entries(): Promise<Collection<DeadLetterRecord>> {
    this.collection ??= this.store.collection<DeadLetterRecord>(DEAD_LETTERS);
    return this.collection;
  }

  /** One entry per job id: a re-driven job that fails again replaces its entry. */
  async put(record: DeadLetterRecord): Promise<void> {
    const { id, ...fields } = record;
    await (await this.entries()).updateOne({ id }, { set: fields }, { upsert: true });
  }

  async get(id: string): Promise<DeadLetterRecord | null> {
    return (await this.entries()).findOne({ id });
  }

  async remove(id: string): Promise<number> {
    return (await this.entries()).delete({ id });
  }

  async all(channel?: Channel): Promise<DeadLetterRecord[]> {
    return (await this.entries()).find(channel ? { channel } : {}, { sort: { field: 'failedAt', direction: 'asc' } });
  }

  async latest(limit: number): Promise<DeadLetterRecord[]> {
    return (await this.entries()).find({}, { sort: { field: 'failedAt', direction: 'desc' }, limit });
  }

  async oldest(): Promise<DeadLetterRecord | null> {
    return (await this.entries()).findOne({}, { sort: { field: 'failedAt', direction: 'asc' } });
  }

  async countsByChannel(): Promise<Record<Channel, number>> {
    const entries = await this.entries();
    const counts = await Promise.all(CHANNELS.map((channel) => entries.count({ channel })));
    return Object.fromEntries(CHANNELS.map((channel, i) => [channel, counts[i]])) as Record<Channel, number>;
  }
}
