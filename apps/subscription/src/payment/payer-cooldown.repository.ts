import { Injectable } from '@nestjs/common';
import { type Collection, type CollectionDefinition, DocumentStore } from '@rp/persistence';

interface PayerFailures {
  /** The payer's address. */
  id: string;
  failures: number;
  blockedUntil: Date;
  /** The count is forgotten a day after the last failure. */
  expiresAt: Date;
}

const PAYER_FAILURES: CollectionDefinition = { name: 'payer_failures', ttl: { field: 'expiresAt' } };

/** First wait after a payment failed on the ledger; it doubles with each further failure, up to an hour. */
const FIRST_WAIT_MS = 30_000;
const LONGEST_WAIT_MS = 3_600_000;
const MEMORY_MS = 86_400_000;

/**
 * Slows down a payer whose payments fail on the ledger: each such failure cost the sponsor a fee, and only a payer
 * who moves its funds away between our simulation and the ledger (or worse) fails repeatedly. After a failure its
 * next payment waits 30 s, then 1, 2, 4 ... minutes, at most an hour; a day without failures forgets it.
 */
@Injectable()
export class PayerCooldownRepository {
  private collection?: Promise<Collection<PayerFailures>>;

  constructor(private readonly store: DocumentStore) {}

  private failures(): Promise<Collection<PayerFailures>> {
    this.collection ??= this.store.collection<PayerFailures>(PAYER_FAILURES);
    return this.collection;
  }

  /** Seconds the payer must still wait, or 0. */
  async remainingSeconds(payer: string, now = new Date()): Promise<number> {
    const record = await (await this.failures()).findOne({ id: payer });
    if (!record) return 0;
    const ms = record.blockedUntil.getTime() - now.getTime();
    return ms > 0 ? Math.ceil(ms / 1000) : 0;
  }

  async recordFailure(payer: string, now = new Date()): Promise<void> {
    const failures = await this.failures();
    const counted = await failures.updateOne(
      { id: payer },
      { inc: { failures: 1 }, set: { expiresAt: new Date(now.getTime() + MEMORY_MS) } },
      { upsert: true },
    );
    const count = counted.document?.failures ?? 1;
    const waitMs = Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(count - 1, 20));
    await failures.updateOne({ id: payer }, { set: { blockedUntil: new Date(now.getTime() + waitMs) } });
  }
}
