import { Injectable } from '@nestjs/common';
import { ErrorCode, type ErrorDetail, SubscriptionErrorCode as Code, type SettlingPayment } from '@rp/contracts';
import {
  type ExactRequirements,
  type ExactRule,
  PAYMENT_REQUIRED_HEADER,
  type PaymentRequired,
  type SettlementReceipt,
  X402_VERSION,
  encodeX402Header,
  PAYMENT_RESPONSE_HEADER,
} from '@rp/ledger';
import { ApiError, type HttpReply } from '@rp/platform';
import { PaymentContext } from '../payment/payment-context';
import type { PaymentRefusal } from '../payment/payment-refusals';
import { MAX_TIMEOUT_SECONDS } from '../payment/payment-settings';

/** 402 code and message of each exact-scheme rule (all checked locally, before any RPC call). */
export const RULE_REFUSALS: Readonly<Record<ExactRule, { code: string; message: string }>> = {
  wrong_operation: {
    code: Code.PAYMENT_WRONG_OPERATION,
    message: 'The payment must be one transfer(from, payTo, amount) call',
  },
  wrong_asset: { code: Code.PAYMENT_WRONG_ASSET, message: 'The payment transfers another asset than the one required' },
  wrong_recipient: { code: Code.PAYMENT_WRONG_RECIPIENT, message: 'The payment goes to another address than payTo' },
  wrong_amount: { code: Code.PAYMENT_WRONG_AMOUNT, message: 'The payment is not for exactly the required amount' },
  self_transfer: {
    code: Code.PAYMENT_SELF_TRANSFER,
    message: 'The payment transfers from payTo to payTo: it would move nothing',
  },
  sponsor_as_payer: { code: Code.PAYMENT_SPONSOR_AS_PAYER, message: 'The fee sponsor cannot pay or be a source' },
  unsigned: { code: Code.PAYMENT_UNSIGNED, message: "The payment's authorization is not signed by the payer" },
  bad_signature: {
    code: Code.PAYMENT_BAD_SIGNATURE,
    message: "The authorization's signature is not the payer's for this network",
  },
  unsafe_authorization: {
    code: Code.PAYMENT_UNSAFE_AUTHORIZATION,
    message: 'The authorization must cover only the transfer, by the payer, with account credentials',
  },
  expired: { code: Code.PAYMENT_EXPIRED, message: "The payment's authorization has expired (or is about to)" },
  expires_too_late: {
    code: Code.PAYMENT_EXPIRES_TOO_LATE,
    message: "The payment's authorization lives longer than maxTimeoutSeconds allows",
  },
};

const UNSUPPORTED: Record<'version' | 'scheme' | 'network', string> = {
  version: Code.PAYMENT_VERSION_UNSUPPORTED,
  scheme: Code.PAYMENT_SCHEME_UNSUPPORTED,
  network: Code.PAYMENT_NETWORK_MISMATCH,
};

/**
 * The payment routes' answers over HTTP: the 402 challenge (the spec's body, x402 v2's `accepts` and
 * `PAYMENT-REQUIRED`), the status and code of each refusal, the 202 of a settlement still running, and the headers
 * of a paid answer. Only the HTTP edge uses it; the payment service says what happened in its own terms.
 */
@Injectable()
export class PaymentAnswers {
  constructor(private readonly context: PaymentContext) {}

  requirements(): ExactRequirements {
    const { settings } = this.context.current();
    return {
      scheme: 'exact',
      network: settings.caip2,
      amount: settings.amount.toString(),
      asset: settings.asset,
      payTo: settings.payTo,
      maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
      extra: { areFeesSponsored: true },
    };
  }

  /** The 402 answer, optionally naming the rule a payment broke. */
  challenge(
    resourceUrl: string,
    code: string = Code.PAYMENT_REQUIRED,
    message = 'Payment required',
    details?: ErrorDetail[],
  ): ApiError {
    const { settings } = this.context.current();
    const requirements = this.requirements();
    const challenge: PaymentRequired = {
      x402Version: X402_VERSION,
      error: message,
      resource: {
        url: resourceUrl,
        description: `API key, ${settings.durationDays} days`,
        mimeType: 'application/json',
      },
      accepts: [requirements],
    };
    return new ApiError(402, code, message, {
      ...(details && { details }),
      body: {
        paymentRequirements: {
          scheme: requirements.scheme,
          network: settings.network,
          payTo: requirements.payTo,
          asset: requirements.asset,
          amount: requirements.amount,
          maxTimeoutSeconds: requirements.maxTimeoutSeconds,
        },
        x402Version: X402_VERSION,
        accepts: challenge.accepts,
      },
      headers: { [PAYMENT_REQUIRED_HEADER]: encodeX402Header(challenge) },
    });
  }

  /**
   * The answer to a refusal. `paymentField`: where the payment came from (the header it was read from, `txJson`),
   * for refusals of taking the payment, whose fields are named within the payment (`payload.transaction`).
   */
  refusal(refusal: PaymentRefusal, resourceUrl: string, paymentField?: string): ApiError {
    switch (refusal.kind) {
      case 'malformed': {
        const field = paymentField ? `${paymentField}.${refusal.field}` : refusal.field;
        return new ApiError(400, ErrorCode.VALIDATION_FAILED, `${field} ${refusal.message}`, {
          details: [{ field, message: refusal.message }],
        });
      }
      case 'unsupported':
        return this.challenge(resourceUrl, UNSUPPORTED[refusal.what], refusal.detail);
      case 'rule': {
        const { code, message } = RULE_REFUSALS[refusal.rule];
        const details = refusal.field ? [{ field: refusal.field, message }] : undefined;
        return this.challenge(resourceUrl, code, message, details);
      }
      case 'simulation_failed':
        return this.challenge(
          resourceUrl,
          Code.PAYMENT_SIMULATION_FAILED,
          `The ledger refuses this payment: ${refusal.detail}`,
        );
      case 'failed_on_ledger':
        return this.challenge(
          resourceUrl,
          Code.PAYMENT_FAILED_ON_LEDGER,
          `This payment's settlement failed on the ledger (${refusal.failure}); it cannot be used again, sign a new one`,
        );
      case 'replayed':
        return new ApiError(409, Code.PAYMENT_REPLAYED, 'This payment was already used; no new key is issued');
      case 'in_progress':
        return new ApiError(409, Code.PAYMENT_IN_PROGRESS, 'This payment is being settled; send it again shortly', {
          headers: { 'Retry-After': String(refusal.retryAfterSeconds) },
          ...(refusal.txHash && { body: { txHash: refusal.txHash } }),
        });
      case 'collecting':
        return new ApiError(
          409,
          Code.PAYMENT_IN_PROGRESS,
          'This payment is settled and another request collecting it got its key first; the same payment sent again ' +
            'collects a fresh key, which replaces that one',
          {
            headers: { 'Retry-After': String(refusal.retryAfterSeconds) },
            ...(refusal.txHash && { body: { txHash: refusal.txHash } }),
          },
        );
      case 'payer_cooling_down':
        return new ApiError(
          429,
          Code.PAYER_COOLING_DOWN,
          "This payer's payments failed on the ledger; its next one waits",
          { headers: { 'Retry-After': String(refusal.retryAfterSeconds) } },
        );
      case 'busy':
        return new ApiError(
          503,
          Code.SETTLEMENT_BUSY,
          `The payment could not be settled now (${refusal.reason}); nothing was charged`,
          {
            headers: { 'Retry-After': String(refusal.retryAfterSeconds) },
          },
        );
      case 'ledger_unavailable':
        return new ApiError(502, Code.LEDGER_UNAVAILABLE, 'The ledger could not be reached; nothing was charged', {
          headers: { 'Retry-After': '5' },
        });
    }
  }

  /** 202: the settlement was sent and is not final yet; the same payment again collects the grant. */
  sendSettling(reply: HttpReply, txHash: string, retryAfterSeconds: number): void {
    const body: SettlingPayment = { status: 'settling', txHash };
    void reply
      .code(202)
      .header('Retry-After', String(retryAfterSeconds))
      .header('Cache-Control', 'no-store')
      .send(body);
  }

  /** 200 with the grant, the settlement receipt, and no caching of a body that holds a key. */
  sendPaid(reply: HttpReply, grant: object, receipt: SettlementReceipt): void {
    void reply
      .code(200)
      .header(PAYMENT_RESPONSE_HEADER, encodeX402Header(receipt))
      .header('Cache-Control', 'no-store')
      .send(grant);
  }
}
