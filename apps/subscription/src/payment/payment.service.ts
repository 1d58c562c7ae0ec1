import { Injectable, Logger } from '@nestjs/common';
import {
  type ExpirationWindow,
  type PaymentPayload,
  type SettlementSimulation,
  brokenExpirationRule,
  simulateSettlement,
} from '@rp/ledger';
import { PayerCooldownRepository } from './payer-cooldown.repository';
import { PaymentContext } from './payment-context';
import { type PaymentOutcome, refused } from './payment-outcome';
import { expectationOf, isRefusal, readPayment } from './payment-reading';
import { MAX_TIMEOUT_SECONDS } from './payment-settings';
import { PaymentClaimedError, type PaymentFlow, type PaymentRecord, PaymentRepository } from './payment.repository';
import { SettlementService } from './settlement.service';

export interface Buyer {
  email: string;
  projectName: string | null;
}

/** A payment as a request brings it. */
export interface PaymentClaim {
  payload: PaymentPayload;
  buyer: Buyer;
  flow: PaymentFlow;
  /** sha256 of exactly what the buyer sent: an identical retry has the same (DECISIONS.md, lost answers). */
  digest: string;
}


/**
 * The rules of taking a payment, in the order that spends least on a bad one: every rule that needs no RPC call
 * (signature included), then what we already know about the payment (collect, in progress, replayed, failed before:
 * no RPC but a ledger number), the payer's cooldown, the expiration window, our own simulation of the settlement and
 * its fee against our cap, the claim, and the settlement.
 */
@Injectable()
export class PaymentService {
  private readonly logger = new Logger(PaymentService.name);

  constructor(
    private readonly context: PaymentContext,
    private readonly payments: PaymentRepository,
    private readonly cooldown: PayerCooldownRepository,
    private readonly settlement: SettlementService,
  ) {}

  async accept(claim: PaymentClaim): Promise<PaymentOutcome> {
    const { settings, ledger, timing } = this.context.current();
    const deadline = Date.now() + settings.settlementTimeoutMs;
    const read = readPayment(claim.payload, settings);
    if (isRefusal(read)) return refused(read);

    const known = await this.payments.findClaim(read.payer, read.nonce);
    const answer = known && (await this.answerKnown(known, claim));
    if (answer) return answer;
    const wait = await this.cooldown.remainingSeconds(read.payer);
    if (wait > 0) return refused({ kind: 'payer_cooling_down', retryAfterSeconds: wait });

    let window: ExpirationWindow;
    try {
      window = await timing.window(MAX_TIMEOUT_SECONDS);
    } catch (error) {
      return refused({ kind: 'ledger_unavailable', detail: (error as Error).message });
    }
    const late = brokenExpirationRule(read.transfer, window);
    if (late) return refused({ kind: 'rule', rule: late });

    let simulation: SettlementSimulation;
    try {
      const simulated = await simulateSettlement(
        ledger,
        read.transfer,
        expectationOf(settings),
        settings.sponsor.publicKey(),
        settings.settlementLanes > 0,
      );
      if ('kind' in simulated) return refused({ kind: 'simulation_failed', detail: simulated.detail });
      simulation = simulated;
    } catch (error) {
      return refused({ kind: 'ledger_unavailable', detail: (error as Error).message });
    }
    if (simulation.totalFee > settings.maxSettlementFee) {
      this.logger.warn(
        { fee: simulation.totalFee.toString(), cap: settings.maxSettlementFee.toString() },
        'settlement fee above the cap: refused, nothing sent',
      );
      return refused({ kind: 'busy', reason: 'the network fee is above our cap right now', retryAfterSeconds: 30 });
    }

    let reserved: PaymentRecord;
    try {
      reserved = await this.payments.reserve({
        payer: read.payer,
        nonce: read.nonce,
        digest: claim.digest,
        authExpiresLedger: read.authExpiresLedger,
        email: claim.buyer.email,
        projectName: claim.buyer.projectName,
        flow: claim.flow,
        network: settings.network,
        asset: settings.asset,
        amount: settings.amount.toString(),
        amountUsd: settings.priceUsd,
      });
    } catch (error) {
      if (error instanceof PaymentClaimedError) return refused({ kind: 'in_progress', retryAfterSeconds: 2 });
      throw error;
    }
    return this.settlement.settle(reserved, read.transfer, simulation, window, deadline);
  }

  /**
   * A payment seen before. Being settled: looked up once (it may have landed since), else in progress. Settled:
   * the identical payment (same bytes, same email) while its authorization lives is a buyer collecting a key whose
   * answer was lost; anything else is a replay. Failed on the ledger: refused for good, the ledger not asked again.
   * `undefined` when the lookup found its settlement past its time bound and released it: it is new again.
   */
  private async answerKnown(known: PaymentRecord, claim: PaymentClaim): Promise<PaymentOutcome | undefined> {
    let record = known;
    if (record.status === 'settling') {
      const { resolution, record: latest } = await this.settlement.resolve(record);
      if (resolution === 'released') return undefined;
      record = latest;
    }
    if (record.status === 'failed') {
      return refused({ kind: 'failed_on_ledger', txHash: record.txHash, failure: record.failure ?? '' });
    }
    if (record.status !== 'settled') {
      return refused({ kind: 'in_progress', txHash: record.txHash, retryAfterSeconds: 2 });
    }
    if (record.email !== claim.buyer.email || record.digest !== claim.digest) return refused({ kind: 'replayed' });
    let currentLedger: number;
    try {
      currentLedger = (await this.context.current().ledger.getLatestLedger()).sequence;
    } catch (error) {
      return refused({ kind: 'ledger_unavailable', detail: (error as Error).message });
    }
    if (currentLedger > record.authExpiresLedger) return refused({ kind: 'replayed' });
    return { kind: 'paid', record, recovered: true };
  }
}
