import { Injectable, Logger } from '@nestjs/common';
import {
  type ExactTransfer,
  type SettlementSimulation,
  SettlementFeeTooHighError,
  accountSequence,
  buildSettlement,
  settlementInclusionFee,
  settlementStatus,
} from '@rp/ledger';
import { PayerCooldownRepository } from './payer-cooldown.repository';
import { PaymentContext } from './payment-context';
import { type PaymentOutcome, refused } from './payment-outcome';
import type { PaymentRefusal } from './payment-refusals';
import { type PaymentRecord, PaymentRepository } from './payment.repository';
import { type LeasedLane, SettlementLanes } from './settlement-lanes.service';

/** A settlement may land for at most this long after it is built (then it can never be applied). */
const SETTLEMENT_LIFETIME_S = 60;
/** A payment whose authorization dies sooner than this is not worth a settlement (it would fail, at our cost). */
const MIN_LIFETIME_S = 15;
/** After its time bound, a settlement no ledger holds is released once the ledger is this much further on. */
const TIME_BOUND_MARGIN_MS = 10_000;
const POLL_MS = 250;
const RESEND_MS = 2_000;

/** The timing a settlement is built with: where the ledger is and how fast it moves. */
export interface SettlementTiming {
  currentLedger: number;
  closeSeconds: number;
}

/** What one lookup of a recorded settlement found; the record is updated accordingly. */
export type Resolution = 'settled' | 'failed' | 'pending' | 'released';

/**
 * Settles a verified, reserved payment: leases a lane, builds and signs the settlement (our resources, an inclusion
 * fee priced from `getFeeStats`, our fee cap),
 * records its hash, and only then sends it; then follows it with `getTransaction` until it is final or the
 * request's bound runs out. It answers the payment's outcome itself: paid, settling (sent, not final within the
 * request's bound: the reconciler finishes it), or refused; a refusal before anything was applied releases the
 * record, so the same payment may come again. A record is never released once a send was attempted, unless the ledger proves nothing
 * can land (the network rejected it and holds no copy, or its time bound has passed and no ledger holds it).
 */
@Injectable()
export class SettlementService {
  private readonly logger = new Logger(SettlementService.name);

  constructor(
    private readonly context: PaymentContext,
    private readonly payments: PaymentRepository,
    private readonly lanes: SettlementLanes,
    private readonly cooldown: PayerCooldownRepository,
  ) {}

  async settle(
    reserved: PaymentRecord,
    transfer: ExactTransfer,
    simulation: SettlementSimulation,
    timing: SettlementTiming,
    deadline: number,
  ): Promise<PaymentOutcome> {
    const { settings, ledger, fees } = this.context.current();
    const retryAfterSeconds = Math.max(1, timing.closeSeconds);
    const lifetime = Math.min(
      SETTLEMENT_LIFETIME_S,
      (reserved.authExpiresLedger - timing.currentLedger - 1) * timing.closeSeconds,
    );
    if (lifetime < MIN_LIFETIME_S) {
      // Not worth a settlement (it would fail, at our cost): the payment's own expiration rule.
      return this.notSent(reserved, { kind: 'rule', rule: 'expired' });
    }
    const lane = await this.lanes.lease(Math.min(deadline, Date.now() + settings.settlementTimeoutMs / 2));
    if (!lane)
      return this.notSent(reserved, { kind: 'busy', reason: 'every settlement lane is busy', retryAfterSeconds });
    let sequence: string;
    try {
      sequence = await accountSequence(ledger, lane.key.publicKey());
    } catch (error) {
      await this.lanes.release(lane);
      return this.notSent(reserved, { kind: 'ledger_unavailable', detail: (error as Error).message });
    }
    const validUntil = Math.floor(Date.now() / 1000) + lifetime;
    // Priced like a close: what getFeeStats asks now, within the sponsor's cap (twice through a lane's fee bump).
    const inclusionFee = settlementInclusionFee(
      await fees.ask(),
      simulation.resourceFee,
      settings.maxSettlementFee,
      lane.key.publicKey() !== settings.sponsor.publicKey(),
    );
    let settlement: ReturnType<typeof buildSettlement>;
    try {
      settlement = buildSettlement({
        transfer,
        simulation,
        lane: lane.key,
        laneSequence: sequence,
        inclusionFee,
        sponsor: settings.sponsor,
        passphrase: settings.passphrase,
        validUntil,
        maxFee: settings.maxSettlementFee,
      });
    } catch (error) {
      await this.lanes.release(lane);
      if (error instanceof SettlementFeeTooHighError) {
        return this.notSent(reserved, { kind: 'busy', reason: error.message, retryAfterSeconds });
      }
      throw error;
    }
    const record = await this.payments.markSettling(reserved.id, {
      txHash: settlement.hash,
      lane: lane.key.publicKey(),
      validUntil: new Date(validUntil * 1000),
      maxFee: settlement.maxFee,
      envelope: settlement.envelope,
    });
    await this.lanes.holdUntil(lane, new Date(validUntil * 1000 + TIME_BOUND_MARGIN_MS));
    // Logged before the send: whatever happens next, the hash is on record and in the log.
    this.logger.log(
      {
        paymentId: record.id,
        payer: record.payer,
        txHash: settlement.hash,
        lane: record.lane,
        maxFee: settlement.maxFee.toString(),
        inclusionFee: inclusionFee.toString(),
      },
      'sending settlement',
    );
    return this.sendAndWatch(record, settlement.envelope, lane, deadline, retryAfterSeconds);
  }

  /**
   * Looks a recorded settlement up once and records what the ledger says: settled, failed (the payer is slowed
   * down), still pending, or released (past its time bound, in no ledger). Safe to run anywhere, any number of
   * times: each transition applies only from `settling`.
   */
  async resolve(record: PaymentRecord): Promise<{ resolution: Resolution; record: PaymentRecord }> {
    const { ledger } = this.context.current();
    if (!record.txHash) return { resolution: 'pending', record };
    // A re-priced settlement is the same transaction at a higher fee: whichever price lands, only one can.
    let found: Awaited<ReturnType<typeof settlementStatus>> | undefined;
    let hash = record.txHash;
    try {
      for (hash of [record.txHash, ...(record.earlierTxHashes ?? [])]) {
        found = await settlementStatus(ledger, hash);
        if (found.status !== 'NOT_FOUND') break;
      }
    } catch {
      return { resolution: 'pending', record };
    }
    if (!found) return { resolution: 'pending', record };
    if (found.status === 'SUCCESS') {
      const settled = await this.payments.markSettled(record.id, {
        paidAt: found.closedAt,
        ledger: found.ledger,
        feeCharged: found.feeCharged,
        txHash: hash,
      });
      if (settled) this.logger.log({ paymentId: record.id, txHash: hash, ledger: found.ledger }, 'payment settled');
      return this.current(record, 'settled', settled);
    }
    if (found.status === 'FAILED') {
      const failed = await this.payments.markFailed(record.id, found.resultCode);
      if (failed) {
        await this.cooldown.recordFailure(record.payer);
        this.logger.warn(
          { paymentId: record.id, payer: record.payer, txHash: hash, resultCode: found.resultCode },
          'settlement failed on the ledger: this payment is refused from now on',
        );
      }
      return this.current(record, 'failed', failed);
    }
    const boundPassed =
      record.validUntil !== undefined &&
      found.latestLedgerCloseTime.getTime() > record.validUntil.getTime() + TIME_BOUND_MARGIN_MS;
    if (!boundPassed) return { resolution: 'pending', record };
    if (await this.payments.release(record.id, 'settling')) {
      this.logger.warn(
        { paymentId: record.id, txHash: record.txHash },
        'settlement never applied and past its time bound: released, the same payment may be sent again',
      );
    }
    return { resolution: 'released', record };
  }

  private async sendAndWatch(
    record: PaymentRecord,
    envelope: string,
    lane: LeasedLane,
    deadline: number,
    retryAfterSeconds: number,
  ): Promise<PaymentOutcome> {
    const accepted = await this.send(envelope);
    if (accepted === 'rejected') {
      // Rejected at submission means not applied, unless an earlier copy (a lost reply) made it: ask first.
      const { resolution, record: latest } = await this.resolve(record);
      if (resolution === 'pending') {
        await this.payments.release(record.id, 'settling');
        await this.lanes.release(lane);
        return refused({ kind: 'busy', reason: 'the network refused the settlement', retryAfterSeconds });
      }
      return this.finish(resolution, latest, lane, retryAfterSeconds);
    }
    let lastSent = Date.now();
    let watched = record;
    let latestEnvelope = envelope;
    for (;;) {
      const { resolution, record: latest } = await this.resolve(watched);
      if (resolution !== 'pending') return this.finish(resolution, latest, lane, retryAfterSeconds);
      if (Date.now() + POLL_MS >= deadline) {
        return { kind: 'settling', record: latest, txHash: latest.txHash ?? '', retryAfterSeconds };
      }
      if (Date.now() - lastSent >= RESEND_MS) {
        // The reconciler may have re-priced it meanwhile: watch every price's hash and resend the latest price.
        const stored = await this.payments.find(watched.id);
        if (stored?.status === 'settling' && stored.txHash !== watched.txHash) {
          watched = stored;
          latestEnvelope = stored.envelope ?? latestEnvelope;
        }
        // The same envelope again: a reply may have been lost, or the network dropped it from its queue (a copy
        // still there answers DUPLICATE; an applied one is found by the lookup above first).
        await this.send(latestEnvelope);
        lastSent = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Sends once; `unknown` when no answer came (it may have arrived), `rejected` when the network refused it. */
  private async send(envelope: string): Promise<'accepted' | 'unknown' | 'rejected'> {
    const { ledger } = this.context.current();
    try {
      const sent = await ledger.sendEnvelope(envelope);
      if (sent.status === 'PENDING' || sent.status === 'DUPLICATE') return 'accepted';
      return sent.status === 'ERROR' ? 'rejected' : 'unknown';
    } catch {
      return 'unknown';
    }
  }

  private async finish(
    resolution: Resolution,
    record: PaymentRecord,
    lane: LeasedLane,
    retryAfterSeconds: number,
  ): Promise<PaymentOutcome> {
    await this.lanes.release(lane);
    if (resolution === 'settled') return { kind: 'paid', record, recovered: false };
    if (resolution === 'failed') {
      return refused({ kind: 'failed_on_ledger', txHash: record.txHash, failure: record.failure ?? '' });
    }
    return refused({
      kind: 'busy',
      reason: 'the settlement was never applied before its time bound',
      retryAfterSeconds,
    });
  }

  /** The record after a transition, or as someone else left it when this caller's transition did not apply. */
  private async current(
    record: PaymentRecord,
    resolution: 'settled' | 'failed',
    transitioned: PaymentRecord | undefined,
  ): Promise<{ resolution: Resolution; record: PaymentRecord }> {
    if (transitioned) return { resolution, record: transitioned };
    const latest = (await this.payments.find(record.id)) ?? record;
    if (latest.status === 'settled') return { resolution: 'settled', record: latest };
    if (latest.status === 'failed') return { resolution: 'failed', record: latest };
    return { resolution: 'pending', record: latest };
  }

  /** Nothing was applied and nothing will be: the record is released, the same payment may come again. */
  private async notSent(reserved: PaymentRecord, refusal: PaymentRefusal): Promise<PaymentOutcome> {
    await this.payments.release(reserved.id, 'reserved');
    return refused(refusal);
  }
}
