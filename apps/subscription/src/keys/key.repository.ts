import { Injectable } from '@nestjs/common';
import type { KeyTier } from '@rp/contracts';
import { type Collection, type CollectionDefinition, DocumentStore, DuplicateKeyError } from '@rp/persistence';

/** An issued key. Only the sha256 of the key is kept; `prefix` (the network tag and 4 characters) is for people. */
export interface KeyRecord {
  id: string;
  hash: string;
  prefix: string;
  tier: KeyTier;
  rateLimit: number;
  burst: number;
  /** The contact the buyer typed (or the operator, for a partner key): the status lookup, never the account. */
  email: string;
  /** `email` in lower case: how records made before accounts named it (`email:<lower case>`). */
  emailKey: string;
  /** Whose key it is (`wallet:<payer>`, `partner:<name>`): proven, never declared (ADR 015). */
  account: string;
  projectName: string | null;
  paymentId: string | null;
  /**
   * The payment, while this key is its live key: set when a bought key is issued, removed in the same write that
   * revokes it. A unique index on it makes two live keys for one payment impossible on every driver.
   */
  livePaymentId?: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt?: Date;
}

export const LIVE_PAYMENT_INDEX = 'api_keys_live_payment';

export const API_KEYS: CollectionDefinition = {
  name: 'api_keys',
  unique: [
    { name: 'api_keys_hash', fields: ['hash'] },
    // Keys missing the field (revoked, partner) never conflict.
    { name: LIVE_PAYMENT_INDEX, fields: ['livePaymentId'] },
  ],
};

/** The payment already has a live key: another request issued it first (collecting the same payment at once). */
export class LiveKeyExistsError extends Error {
  override readonly name = 'LiveKeyExistsError';
}

@Injectable()
export class KeyRepository {
  private collection?: Promise<Collection<KeyRecord>>;

  constructor(private readonly store: DocumentStore) {}

  private keys(): Promise<Collection<KeyRecord>> {
    this.collection ??= this.store.collection<KeyRecord>(API_KEYS);
    return this.collection;
  }

  /** Stores a key; `LiveKeyExistsError` when its payment already has a live key. */
  async insert(key: KeyRecord): Promise<KeyRecord> {
    try {
      return await (await this.keys()).insert(key);
    } catch (error) {
      if (error instanceof DuplicateKeyError && error.index === LIVE_PAYMENT_INDEX) {
        throw new LiveKeyExistsError(`payment ${key.paymentId} already has a live key`);
      }
      throw error;
    }
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

  /** Every key not revoked that a payment paid for (one, once the rule holds). */
  async liveForPayment(paymentId: string): Promise<KeyRecord[]> {
    return (await this.keys()).find({ paymentId, revokedAt: null }, { sort: { field: 'createdAt', direction: 'asc' } });
  }

  /** Revokes every key still usable that a payment paid for; returns how many. */
  async revokeForPayment(paymentId: string, at: Date): Promise<number> {
    let revoked = 0;
    for (const key of await this.liveForPayment(paymentId)) {
      if (await this.revokeLive(key.id, at)) revoked += 1;
    }
    return revoked;
  }

  /** Revokes a key (again, if it was: the date moves); its payment is free for a new live key. */
  async revoke(id: string, at: Date): Promise<KeyRecord | null> {
    return (await (await this.keys()).updateOne({ id }, { set: { revokedAt: at }, unset: ['livePaymentId'] })).document;
  }

  /** Revokes a key that is not revoked yet; false when it already was. */
  async revokeLive(id: string, at: Date): Promise<boolean> {
    const keys = await this.keys();
    return (await keys.updateOne({ id, revokedAt: null }, { set: { revokedAt: at }, unset: ['livePaymentId'] }))
      .matched;
  }

  /** Keys stored before accounts existed (no `account`), a batch at a time. */
  async withoutAccount(limit: number): Promise<KeyRecord[]> {
    return (await this.keys()).find({ account: null }, { limit });
  }

  async setAccount(id: string, account: string, emailKey: string): Promise<void> {
    await (await this.keys()).updateOne({ id }, { set: { account, emailKey } });
  }

  /** Bought keys not revoked that do not hold their payment's live mark (stored before the rule existed). */
  async liveWithoutMark(): Promise<KeyRecord[]> {
    return (await this.keys()).find({ tier: 'standard', revokedAt: null, livePaymentId: null });
  }

  /** Marks a key not revoked as its payment's live key; `LiveKeyExistsError` when another one holds the mark. */
  async markLive(id: string, paymentId: string): Promise<boolean> {
    try {
      return (await (await this.keys()).updateOne({ id, revokedAt: null }, { set: { livePaymentId: paymentId } }))
        .matched;
    } catch (error) {
      if (error instanceof DuplicateKeyError && error.index === LIVE_PAYMENT_INDEX) {
        throw new LiveKeyExistsError(`payment ${paymentId} already has a live key`);
      }
      throw error;
    }
  }

  /** The distinct accounts of every key (revoked and expired included) with this email in lower case. */
  async accountsWithEmail(emailKey: string): Promise<string[]> {
    const keys = await (await this.keys()).find({ emailKey });
    return [...new Set(keys.map((key) => key.account))].sort();
  }
}
