import { Injectable } from '@nestjs/common';
import { type Collection, type CollectionDefinition, DocumentStore, DuplicateKeyError } from '@rp/persistence';

export type PaymentFlow = 'direct' | 'assisted';

/**
 * reserved: claimed (payer + auth nonce), nothing sent yet; settling: the settlement (its hash recorded) may have
 * been sent; settled: it succeeded on the ledger, money moved; failed: it failed on the ledger, no money moved, the
 * same payment is refused for good. A record is deleted (released) only when nothing can have been applied.
 */
export type PaymentStatus = 'reserved' | 'settling' | 'settled' | 'failed';

export interface PaymentRecord {
  id: string;
  payer: string;
  nonce: string;
  status: PaymentStatus;
  /** sha256 of what the buyer sent: an identical retry (a buyer who lost the answer) has the same. */
  digest: string;
  /** The payer's authorization is dead after this ledger. */
  authExpiresLedger: number;
  email: string;
  projectName: string | null;
  flow: PaymentFlow;
  network: string;
  asset: string;
  amount: string;
  amountUsd: string;
  createdAt: Date;
  /** Settlement, from `settling` on. */
  txHash?: string;
  lane?: string;
  /** The settlement can never be applied after this moment (its time bound). */
  validUntil?: Date;
  /** The most the sponsor pays for it, stroops. */
  maxFee?: string;
  /** The signed settlement as sent (base64), so the reconciler can re-price it. */
  envelope?: string;
  /** Hashes of the same settlement at earlier prices (re-priced): any of them may be the one that lands. */
  earlierTxHashes?: string[];
  repricedAt?: Date;
  sentAt?: Date;
  /** Settled. */
  paidAt?: Date;
  feeCharged?: string;
  ledger?: number;
  /** The key issued for this payment (the latest, when a buyer collected it again). */
  keyId?: string;
  /** Failed. */
  failedAt?: Date;
  failure?: string;
}

export type NewPayment = Omit<PaymentRecord, 'id' | 'status' | 'createdAt'>;

export const PAYMENTS: CollectionDefinition = {
  name: 'payments',
  unique: [
    { name: 'payments_tx_hash', fields: ['txHash'] },
    { name: 'payments_payer_nonce', fields: ['payer', 'nonce'] },
  ],
};

/** Another request claimed this payer + nonce first. */
export class PaymentClaimedError extends Error {
  override readonly name = 'PaymentClaimedError';
}

export interface Settling {
  txHash: string;
  lane: string;
  validUntil: Date;
  maxFee: bigint;
  /** The signed envelope (kept for re-pricing; absent on records written before). */
  envelope?: string;
}

/** The same settlement at a higher fee (`repriceSettlement`). */
export interface Repriced {
  txHash: string;
  envelope: string;
  maxFee: bigint;
}

/**
 * Payments and their transitions. Every transition names the state it leaves, so the request that settles a
 * payment and a reconciler on another replica can both try and exactly one succeeds.
 */
@Injectable()
export class PaymentRepository {
  private collection?: Promise<Collection<PaymentRecord>>;

  constructor(private readonly store: DocumentStore) {}

  private payments(): Promise<Collection<PaymentRecord>> {
    this.collection ??= this.store.collection<PaymentRecord>(PAYMENTS);
    return this.collection;
  }

  /** Claims payer + nonce; `PaymentClaimedError` when another request did first. */
  async reserve(payment: NewPayment): Promise<PaymentRecord> {
    try {
      return await (await this.payments()).insert({ ...payment, status: 'reserved', createdAt: new Date() });
    } catch (error) {
      if (error instanceof DuplicateKeyError) throw new PaymentClaimedError('payment already claimed');
      throw error;
    }
  }

  findClaim(payer: string, nonce: string): Promise<PaymentRecord | null> {
    return this.payments().then((payments) => payments.findOne({ payer, nonce }));
  }

  async find(id: string): Promise<PaymentRecord | null> {
    return (await this.payments()).findOne({ id });
  }

  /** reserved -> settling, with the settlement's hash: written before the settlement is sent. */
  async markSettling(id: string, settling: Settling): Promise<PaymentRecord> {
    const result = await (
      await this.payments()
    ).updateOne(
      { id, status: 'reserved' },
      {
        set: {
          status: 'settling',
          txHash: settling.txHash,
          lane: settling.lane,
          validUntil: settling.validUntil,
          maxFee: settling.maxFee.toString(),
          ...(settling.envelope !== undefined && { envelope: settling.envelope }),
          sentAt: new Date(),
        },
      },
    );
    if (!result.document) throw new Error(`payment ${id} was not reserved when its settlement was recorded`);
    return result.document;
  }

  /**
   * settling at `fromTxHash` -> settling at the re-priced settlement's hash (written before it is sent; the earlier
   * hash is kept, it may still be the one that lands). `undefined` when the record moved on meanwhile.
   */
  async markRepriced(
    record: PaymentRecord,
    fromTxHash: string,
    repriced: Repriced,
  ): Promise<PaymentRecord | undefined> {
    const result = await (
      await this.payments()
    ).updateOne(
      { id: record.id, status: 'settling', txHash: fromTxHash },
      {
        set: {
          txHash: repriced.txHash,
          envelope: repriced.envelope,
          maxFee: repriced.maxFee.toString(),
          earlierTxHashes: [...(record.earlierTxHashes ?? []), fromTxHash],
          repricedAt: new Date(),
        },
      },
    );
    return result.document ?? undefined;
  }

  /**
   * settling -> settled (`txHash`: the hash that landed, an earlier price's one included); `undefined` when it was
   * not settling any more (someone else resolved it).
   */
  async markSettled(
    id: string,
    outcome: { paidAt: Date; ledger: number; feeCharged?: bigint; txHash?: string },
  ): Promise<PaymentRecord | undefined> {
    const result = await (
      await this.payments()
    ).updateOne(
      { id, status: 'settling' },
      {
        set: {
          status: 'settled',
          ...(outcome.txHash !== undefined && { txHash: outcome.txHash }),
          paidAt: outcome.paidAt,
          ledger: outcome.ledger,
          ...(outcome.feeCharged !== undefined && { feeCharged: outcome.feeCharged.toString() }),
        },
      },
    );
    return result.document ?? undefined;
  }

  /** settling -> failed; `undefined` when it was not settling any more. */
  async markFailed(id: string, failure: string): Promise<PaymentRecord | undefined> {
    const result = await (
      await this.payments()
    ).updateOne({ id, status: 'settling' }, { set: { status: 'failed', failure, failedAt: new Date() } });
    return result.document ?? undefined;
  }

  /**
   * Deletes a record in `status` (reserved or settling) so the same payment can be tried again. Callers release
   * only what the ledger cannot have applied: nothing sent, a send the network rejected, or a settlement past its
   * time bound that no ledger holds.
   */
  async release(id: string, status: 'reserved' | 'settling'): Promise<boolean> {
    return (await (await this.payments()).delete({ id, status })) > 0;
  }

  async attachKey(id: string, keyId: string): Promise<void> {
    await (await this.payments()).updateOne({ id }, { set: { keyId } });
  }

  /** Settlements whose outcome is not known yet. */
  async unresolved(limit = 100): Promise<PaymentRecord[]> {
    return (await this.payments()).find({ status: 'settling' }, { sort: { field: 'sentAt', direction: 'asc' }, limit });
  }

  /** Claims that never got as far as a settlement (the process stopped in between). */
  async staleReservations(olderThan: Date, limit = 100): Promise<PaymentRecord[]> {
    return (await this.payments()).find({ status: 'reserved', createdAt: { $lt: olderThan } }, { limit });
  }

  async lastSettled(email: string): Promise<PaymentRecord | null> {
    return (await this.payments()).findOne(
      { email, status: 'settled' },
      { sort: { field: 'paidAt', direction: 'desc' } },
    );
  }

  async lastSettling(email: string): Promise<PaymentRecord | null> {
    return (await this.payments()).findOne(
      { email, status: 'settling' },
      { sort: { field: 'sentAt', direction: 'desc' } },
    );
  }
}
