import { Injectable } from '@nestjs/common';
import type { KeyTier } from '@rp/contracts';
import { type Collection, type CollectionDefinition, DocumentStore } from '@rp/persistence';

/** An issued key. Only the sha256 of the key is kept; `prefix` (the network tag and 4 characters) is for people. */
export interface KeyRecord {
  id: string;
  hash: string;
  prefix: string;
  tier: KeyTier;
  rateLimit: number;
  burst: number;
  email: string;
  projectName: string | null;
  paymentId: string | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt?: Date;
}

export const API_KEYS: CollectionDefinition = {
  name: 'api_keys',
  unique: [{ name: 'api_keys_hash', fields: ['hash'] }],
};

@Injectable()
export class KeyRepository {
  private collection?: Promise<Collection<KeyRecord>>;

  constructor(private readonly store: DocumentStore) {}

  private keys(): Promise<Collection<KeyRecord>> {
    this.collection ??= this.store.collection<KeyRecord>(API_KEYS);
    return this.collection;
  }

  async insert(key: Omit<KeyRecord, 'id'>): Promise<KeyRecord> {
    return (await this.keys()).insert(key);
  }

  async findByHash(hash: string): Promise<KeyRecord | null> {
    return (await this.keys()).findOne({ hash });
  }

  async findById(id: string): Promise<KeyRecord | null> {
    return (await this.keys()).findOne({ id });
  }

  /** The key of `email` that lasts longest (the one status reports). */
  async latestFor(email: string): Promise<KeyRecord | null> {
    return (await this.keys()).findOne({ email, revokedAt: null }, { sort: { field: 'expiresAt', direction: 'desc' } });
  }

  /** Revokes every key still usable that a payment paid for; returns how many. */
  async revokeForPayment(paymentId: string, at: Date): Promise<number> {
    const keys = await this.keys();
    const issued = await keys.find({ paymentId, revokedAt: null });
    for (const key of issued) await keys.updateOne({ id: key.id }, { set: { revokedAt: at } });
    return issued.length;
  }

  async revoke(id: string, at: Date): Promise<KeyRecord | null> {
    return (await (await this.keys()).updateOne({ id }, { set: { revokedAt: at } })).document;
  }
}
