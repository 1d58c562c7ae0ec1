import { Injectable } from '@nestjs/common';
import {
  STANDARD_BURST,
  STANDARD_RATE_LIMIT,
  SubscriptionErrorCode as Code,
  type SubscriptionGrant,
  type SubscriptionStatus,
} from '@rp/contracts';
import { ApiError } from '@rp/platform';
import { KeyRepository } from '../keys/key.repository';
import { KeysService } from '../keys/keys.service';
import type { PaymentPayload, SettlementReceipt } from '@rp/ledger';
import type { PaymentFlow } from '../payment/payment.repository';
import { type AcceptedPayment, type Buyer, PaymentService } from '../payment/payment.service';
import { PaymentRepository } from '../payment/payment.repository';

const DAY_MS = 86_400_000;

/** Turns a settled payment into a standard key, and answers what an email's subscription looks like. */
@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly keys: KeysService,
    private readonly keyRecords: KeyRepository,
    private readonly payments: PaymentRepository,
    private readonly payment: PaymentService,
  ) {}

  /** Takes the payment (every check, settlement, record) and issues the key it pays for. */
  async purchase(
    payload: PaymentPayload,
    buyer: Buyer,
    flow: PaymentFlow,
    context: { resourceUrl: string; field: string },
  ): Promise<{ grant: SubscriptionGrant; receipt: SettlementReceipt }> {
    const accepted = await this.payment.accept(payload, buyer, flow, context);
    return { grant: await this.grant(accepted), receipt: accepted.receipt };
  }

  /** A new standard key, valid `durationDays` from the payment. */
  private async grant(accepted: AcceptedPayment): Promise<SubscriptionGrant> {
    const settings = this.payment.settings();
    const { record } = accepted;
    const { apiKey, record: key } = await this.keys.issue({
      network: settings.network,
      tier: 'standard',
      rateLimit: STANDARD_RATE_LIMIT,
      burst: STANDARD_BURST,
      durationDays: settings.durationDays,
      from: record.paidAt ?? new Date(),
      email: record.email,
      projectName: record.projectName,
      paymentId: record.id,
    });
    return {
      apiKey,
      tier: key.tier,
      rateLimit: key.rateLimit,
      expiresAt: key.expiresAt.toISOString(),
      durationDays: settings.durationDays,
      network: settings.network,
    };
  }

  async status(email: string, now = new Date()): Promise<SubscriptionStatus> {
    const payment = await this.payments.lastSettled(email);
    if (!payment || !payment.txHash || !payment.paidAt) {
      throw new ApiError(404, Code.SUBSCRIPTION_NOT_FOUND, 'No payment was ever made with this email');
    }
    const key = await this.keyRecords.latestFor(email);
    const durationMs = (key ? key.expiresAt.getTime() - key.createdAt.getTime() : 0) || 30 * DAY_MS;
    const expiresAt = key?.expiresAt ?? new Date(payment.paidAt.getTime() + durationMs);
    return {
      active: key !== null && expiresAt.getTime() > now.getTime(),
      tier: key?.tier ?? 'standard',
      rateLimit: key?.rateLimit ?? STANDARD_RATE_LIMIT,
      expiresAt: expiresAt.toISOString(),
      lastPayment: {
        network: payment.network,
        amountUsd: payment.amountUsd,
        txHash: payment.txHash,
        paidAt: payment.paidAt.toISOString(),
      },
    };
  }
}
