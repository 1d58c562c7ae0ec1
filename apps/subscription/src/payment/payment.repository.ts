import { Injectable } from '@nestjs/common';
import { type Collection, type CollectionDefinition, DocumentStore, DuplicateKeyError } from '@rp/persistence';

export type PaymentFlow = 'direct' | 'assisted';

/**
 * One payment. It is written as `settling` before the transaction is sent, so the unique index on payer + auth
 * nonce turns a concurrent replay into a conflict instead of a second settlement; a refused payment's record is
 * deleted again.
 */
export interface PaymentRecord {
  id: string;
  payer: string;
  nonce: string;
  status: 'settling' | 'settled';
  txHash?: string;
  email: string;
  projectName: string | null;
  flow: PaymentFlow;
  network: string;
  asset: string;
  amount: string;
  amountUsd: string;
  createdAt: Date;
  paidAt?: Date;
}

export const PAYMENTS: CollectionDefinition = {
  name: 'payments',
  unique: [
    { name: 'payments_tx_hash', fields: ['txHash'] },
    { name: 'payments_payer_nonce', fields: ['payer', 'nonce'] },
  ],
};

export class PaymentReplayedError extends Error {
  override readonly name = 'PaymentReplayedError';
}

@Injectable()
export class PaymentRepository {
  private collection?: Promise<Collection<PaymentRecord>>;

  constructor(private readonly store: DocumentStore) {}

  private payments(): Promise<Collection<PaymentRecord>> {
    this.collection ??= this.store.collection<PaymentRecord>(PAYMENTS);
    return this.collection;
  }

  /** Claims payer + nonce for a settlement; `PaymentReplayedError` when the payment was used before. */
  async reserve(payment: Omit<PaymentRecord, 'id' | 'status' | 'createdAt'>): Promise<PaymentRecord> {
    try {
      return await (await this.payments()).insert({ ...payment, status: 'settling', createdAt: new Date() });
    } catch (error) {
      if (error instanceof DuplicateKeyError) throw new PaymentReplayedError('payment already used');
      throw error;
    }
  }

  async release(id: string): Promise<void> {
    await (await this.payments()).delete({ id, status: 'settling' });
  }

  async markSettled(id: string, txHash: string, paidAt: Date): Promise<PaymentRecord> {
    try {
      const result = await (await this.payments()).updateOne({ id }, { set: { status: 'settled', txHash, paidAt } });
      if (!result.document) throw new Error(`payment ${id} vanished while settling`);
      return result.document;
    } catch (error) {
      if (error instanceof DuplicateKeyError) throw new PaymentReplayedError('transaction already recorded');
      throw error;
    }
  }

  async findUsed(payer: string, nonce: string): Promise<PaymentRecord | null> {
    return (await this.payments()).findOne({ payer, nonce });
  }

  async lastSettled(email: string): Promise<PaymentRecord | null> {
    return (await this.payments()).findOne(
      { email, status: 'settled' },
      { sort: { field: 'paidAt', direction: 'desc' } },
    );
  }
}
