import { Injectable } from '@nestjs/common';
import {
  STANDARD_BURST,
  STANDARD_RATE_LIMIT,
  SubscriptionErrorCode as Code,
  type SubscriptionGrant,
  type SubscriptionStatus,
} from '@rp/contracts';
import type { SettlementReceipt } from '@rp/ledger';
import { ApiError } from '@rp/platform';
import { SubscriptionConfig } from '../config/subscription.config';
import { KeyRepository, LiveKeyExistsError } from '../keys/key.repository';
import { KeysService } from '../keys/keys.service';
import { PaymentContext } from '../payment/payment-context';
import { type PaymentRecord, PaymentRepository } from '../payment/payment.repository';
import type { PaymentOutcome } from '../payment/payment-outcome';
import { type PaymentClaim, PaymentService } from '../payment/payment.service';

const DAY_MS = 86_400_000;

/** The payment's outcome with the key in place of `paid`: what a purchase adds to taking the payment. */
export type PurchaseOutcome =
  | Exclude<PaymentOutcome, { kind: 'paid' }>
  | { kind: 'granted'; grant: SubscriptionGrant; receipt: SettlementReceipt };

/** Turns a settled payment into a standard key, and answers what an email's subscription looks like. */
@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly keys: KeysService,
    private readonly keyRecords: KeyRepository,
    private readonly payments: PaymentRepository,
    private readonly payment: PaymentService,
    private readonly context: PaymentContext,
    private readonly config: SubscriptionConfig,
  ) {}

  /**
   * Takes the payment and issues the key it pays for. A buyer collecting a payment settled before (its answer was
   * lost, or it was 202) gets a fresh key for it, and the key issued before for that payment is revoked. A payment
   * has one live key at any moment, whatever the driver: its key holds the payment in a uniquely indexed field
   * until it is revoked, so of requests collecting one payment at once each revoke-and-issue either wins (its key
   * replaces the one before) or finds another request's key just issued and answers 409 `collecting` (ADR 015).
   */
  async purchase(claim: PaymentClaim): Promise<PurchaseOutcome> {
    const outcome = await this.payment.accept(claim);
    if (outcome.kind !== 'paid') return outcome;
    const { record } = outcome;
    if (outcome.recovered || record.keyId) await this.keys.revokeForPayment(record.id);
    let grant: SubscriptionGrant;
    try {
      grant = await this.grant(record);
    } catch (error) {
      if (!(error instanceof LiveKeyExistsError)) throw error;
      return { kind: 'refused', refusal: { kind: 'collecting', txHash: record.txHash, retryAfterSeconds: 1 } };
    }
    const { settings } = this.context.current();
    return {
      kind: 'granted',
      grant,
      receipt: { success: true, transaction: record.txHash ?? '', network: settings.caip2, payer: record.payer },
    };
  }

  /** A new standard key, valid `durationDays` from the payment. */
  private async grant(record: PaymentRecord): Promise<SubscriptionGrant> {
    const { settings } = this.context.current();
    const { apiKey, record: key } = await this.keys.issue({
      network: settings.network,
      tier: 'standard',
      rateLimit: STANDARD_RATE_LIMIT,
      burst: STANDARD_BURST,
      durationDays: settings.durationDays,
      from: record.paidAt ?? new Date(),
      email: record.email,
      projectName: record.projectName,
      owner: { kind: 'payment', paymentId: record.id, payer: record.payer },
    });
    await this.payments.attachKey(record.id, key.id);
    return {
      apiKey,
      tier: key.tier,
      rateLimit: key.rateLimit,
      expiresAt: key.expiresAt.toISOString(),
      durationDays: settings.durationDays,
      network: settings.network,
    };
  }

  /**
   * The subscription of an email: its last settled payment and the key that lasts longest; a payment still being
   * settled is shown too (`settling`). 404 only when the email never paid and has nothing being settled: an email
   * whose payment took money always gets an answer, even before its key was collected.
   */
  async status(email: string, now = new Date()): Promise<SubscriptionStatus> {
    const [settled, settling] = await Promise.all([
      this.payments.lastSettled(email),
      this.payments.lastSettling(email),
    ]);
    const shown = settled ?? settling;
    if (!shown?.txHash) {
      throw new ApiError(404, Code.SUBSCRIPTION_NOT_FOUND, 'No payment was ever made with this email');
    }
    const key = settled ? await this.keyRecords.latestFor(email) : null;
    const paidAt = shown.paidAt ?? shown.sentAt ?? shown.createdAt;
    const expiresAt = key?.expiresAt ?? new Date(paidAt.getTime() + this.config.X402_SUBSCRIPTION_DAYS * DAY_MS);
    return {
      active: key !== null && expiresAt.getTime() > now.getTime(),
      tier: key?.tier ?? 'standard',
      rateLimit: key?.rateLimit ?? STANDARD_RATE_LIMIT,
      expiresAt: expiresAt.toISOString(),
      lastPayment: {
        network: shown.network,
        amountUsd: shown.amountUsd,
        txHash: shown.txHash,
        paidAt: paidAt.toISOString(),
      },
      ...(settling?.txHash && {
        settling: { txHash: settling.txHash, since: (settling.sentAt ?? settling.createdAt).toISOString() },
      }),
    };
  }
}
