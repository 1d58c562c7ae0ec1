import { Injectable, Logger } from '@nestjs/common';
import { repriceSettlement } from '@rp/ledger';
import { PaymentContext } from './payment-context';
import { type PaymentRecord, PaymentRepository } from './payment.repository';

/** A settlement still waiting this many ledgers after it was sent (or last re-priced) is re-priced. */
const REPRICE_AFTER_LEDGERS = 2;

/**
 * Re-prices a settlement the network has not included yet, while it can still land: a new sponsor fee bump of the
 * same signed transaction at what `getFeeStats` asks now (at least 10x its bid, the queue's replace-by-fee rule),
 * within `X402_MAX_SETTLEMENT_FEE_STROOPS`. The same transaction and sequence number: whichever price lands, the
 * payment settles once, and a settlement found on the ledger is never re-priced (the reconciler resolves first).
 * Nothing is re-priced past its time bound or the payer's authorization: no fee is offered for a payment that can
 * no longer be made. The new hash is recorded (the earlier ones kept for lookups) before it is sent.
 */
@Injectable()
export class SettlementRepricer {
  private readonly logger = new Logger(SettlementRepricer.name);

  constructor(
    private readonly context: PaymentContext,
    private readonly payments: PaymentRepository,
  ) {}

  /** Re-prices a `settling` record the ledger does not hold (yet); the updated record, or `undefined` if not. */
  async reprice(record: PaymentRecord): Promise<PaymentRecord | undefined> {
    const { settings, ledger, timing, fees } = this.context.current();
    if (record.status !== 'settling' || !record.envelope || !record.txHash || !record.validUntil) return undefined;
    const closeMs = (await timing.closeSeconds()) * 1000;
    const now = Date.now();
    const since = (record.repricedAt ?? record.sentAt)?.getTime() ?? now;
    if (now - since < REPRICE_AFTER_LEDGERS * closeMs) return undefined;
    // Within a ledger of its time bound the new price could not land in time either.
    if (now + closeMs >= record.validUntil.getTime()) return undefined;
    if ((await ledger.getLatestLedger()).sequence + 1 >= record.authExpiresLedger) return undefined;
    const repriced = repriceSettlement({
      envelope: record.envelope,
      sponsor: settings.sponsor,
      passphrase: settings.passphrase,
      ask: await fees.ask(),
      maxFee: settings.maxSettlementFee,
    });
    if (!repriced) return undefined;
    const updated = await this.payments.markRepriced(record, record.txHash, {
      txHash: repriced.hash,
      envelope: repriced.envelope,
      maxFee: repriced.maxFee,
    });
    if (!updated) return undefined;
    this.logger.log(
      { paymentId: record.id, from: record.txHash, txHash: repriced.hash, maxFee: repriced.maxFee.toString() },
      'settlement re-priced: sending the same transaction at a higher fee',
    );
    try {
      await ledger.sendEnvelope(repriced.envelope);
    } catch (error) {
      // Recorded: the next pass looks it up, and re-sends by re-pricing again if it never arrived.
      this.logger.warn(
        { paymentId: record.id, txHash: repriced.hash },
        `re-priced send failed: ${(error as Error).message}`,
      );
    }
    return updated;
  }
}
