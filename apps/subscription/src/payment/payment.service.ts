import { Injectable, Logger } from '@nestjs/common';
import { ErrorCode, SubscriptionErrorCode as Code } from '@rp/contracts';
import {
  type ExactExpectation,
  type ExactRequirements,
  LedgerRpcError,
  MalformedTransferError,
  type PaymentPayload,
  type PaymentRequired,
  type SettlementReceipt,
  ASSUMED_LEDGER_SECONDS,
  PAYMENT_REQUIRED_HEADER,
  X402_VERSION,
  brokenExactRule,
  brokenExpirationRule,
  encodeX402Header,
  paymentNonce,
  readExactTransfer,
} from '@rp/ledger';
import { ApiError } from '@rp/platform';
import { LedgerSettlement } from './ledger-settlement';
import { RULE_REFUSALS, facilitatorRefusal, ledgerUnavailable } from './payment-refusals';
import { MAX_TIMEOUT_SECONDS, type PaymentSettings } from './payment-settings';
import { type PaymentFlow, type PaymentRecord, PaymentRepository, PaymentReplayedError } from './payment.repository';

/** Ledgers of slack on the expiration bound, as the reference facilitator allows. */
const EXPIRATION_TOLERANCE = 2;

export interface Buyer {
  email: string;
  projectName: string | null;
}

export interface AcceptedPayment {
  record: PaymentRecord;
  receipt: SettlementReceipt;
}

/**
 * The rules of taking a payment: requirements, the 402 answer, every exact-scheme check (the static ones locally
 * and before any RPC call), replay protection, settlement and the record. A refused payment leaves no record.
 */
@Injectable()
export class PaymentService {
  private readonly logger = new Logger(PaymentService.name);

  constructor(
    private readonly settlement: LedgerSettlement,
    private readonly payments: PaymentRepository,
  ) {}

  /** The settings, or 503 PAYMENT_NOT_CONFIGURED. */
  settings(): PaymentSettings {
    const settings = this.settlement.settings;
    if (!settings) {
      throw new ApiError(503, Code.PAYMENT_NOT_CONFIGURED, 'Payment is not configured on this server', {
        headers: { 'Retry-After': '300' },
      });
    }
    return settings;
  }

  requirements(): ExactRequirements {
    const settings = this.settings();
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

  /** The 402 answer: the spec's body, x402 v2's `accepts` and the `PAYMENT-REQUIRED` header. */
  paymentRequired(resourceUrl: string, code: string = Code.PAYMENT_REQUIRED, message = 'Payment required'): ApiError {
    const settings = this.settings();
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

  /** Verifies and settles `payload`; throws the 4xx/5xx ApiError of the first broken rule. */
  async accept(
    payload: PaymentPayload,
    buyer: Buyer,
    flow: PaymentFlow,
    context: { resourceUrl: string; field: string },
  ): Promise<AcceptedPayment> {
    const settings = this.settings();
    const refuse = (code: string, message: string) => this.paymentRequired(context.resourceUrl, code, message);
    if (payload.x402Version !== X402_VERSION) {
      throw refuse(Code.PAYMENT_VERSION_UNSUPPORTED, `Only x402Version ${X402_VERSION} is accepted`);
    }
    if (payload.accepted.scheme !== 'exact')
      throw refuse(Code.PAYMENT_SCHEME_UNSUPPORTED, 'Only scheme exact is accepted');
    if (payload.accepted.network !== settings.caip2) {
      throw refuse(
        Code.PAYMENT_NETWORK_MISMATCH,
        `The payment is for ${payload.accepted.network}, not ${settings.caip2}`,
      );
    }

    const transfer = this.read(payload, settings, context.field);
    const expected: ExactExpectation = {
      asset: settings.asset,
      payTo: settings.payTo,
      amount: settings.amount,
      sponsors: new Set([settings.sponsor.publicKey()]),
      passphrase: settings.passphrase,
    };
    const broken = brokenExactRule(transfer, expected);
    if (broken) throw refuse(RULE_REFUSALS[broken].code, RULE_REFUSALS[broken].message);

    const payer = transfer.from ?? '';
    const nonce = paymentNonce(transfer) ?? '';
    if (await this.payments.findUsed(payer, nonce)) throw replayed();

    const currentLedger = await this.ask(() => this.settlement.latestLedger());
    const maxLedger = currentLedger + Math.ceil(MAX_TIMEOUT_SECONDS / ASSUMED_LEDGER_SECONDS) + EXPIRATION_TOLERANCE;
    const late = brokenExpirationRule(transfer, { currentLedger, maxLedger });
    if (late) throw refuse(RULE_REFUSALS[late].code, RULE_REFUSALS[late].message);

    return this.settle(payload, { payer, nonce, buyer, flow, settings }, refuse);
  }

  private async settle(
    payload: PaymentPayload,
    claim: { payer: string; nonce: string; buyer: Buyer; flow: PaymentFlow; settings: PaymentSettings },
    refuse: (code: string, message: string) => ApiError,
  ): Promise<AcceptedPayment> {
    const { settings } = claim;
    let reservation: PaymentRecord;
    try {
      reservation = await this.payments.reserve({
        payer: claim.payer,
        nonce: claim.nonce,
        email: claim.buyer.email,
        projectName: claim.buyer.projectName,
        flow: claim.flow,
        network: settings.network,
        asset: settings.asset,
        amount: settings.amount.toString(),
        amountUsd: settings.priceUsd,
      });
    } catch (error) {
      if (error instanceof PaymentReplayedError) throw replayed();
      throw error;
    }

    let outcome: Awaited<ReturnType<LedgerSettlement['settle']>>;
    try {
      outcome = await this.settlement.settle(payload, this.requirements());
    } catch (error) {
      await this.payments.release(reservation.id);
      throw this.ledgerTrouble(error);
    }
    if (!outcome.settled) {
      await this.payments.release(reservation.id);
      const refusal = facilitatorRefusal(outcome.reason);
      this.logger.warn({ payer: claim.payer, reason: outcome.reason, txHash: outcome.txHash }, 'payment refused');
      if (refusal.status === 502) throw ledgerUnavailable(outcome.reason, ' to settle the payment');
      throw refuse(refusal.code, `The ledger refused the payment (${outcome.reason})`);
    }
    const record = await this.payments.markSettled(reservation.id, outcome.txHash, new Date());
    this.logger.log({ payer: claim.payer, txHash: outcome.txHash, flow: claim.flow }, 'payment settled');
    return {
      record,
      receipt: { success: true, transaction: outcome.txHash, network: settings.caip2, payer: claim.payer },
    };
  }

  private read(payload: PaymentPayload, settings: PaymentSettings, field: string) {
    try {
      return readExactTransfer(payload.payload.transaction, settings.passphrase);
    } catch (error) {
      if (!(error instanceof MalformedTransferError)) throw error;
      const where = `${field}.payload.transaction`;
      throw new ApiError(400, ErrorCode.VALIDATION_FAILED, `${where} is not a base64 transaction envelope`, {
        details: [{ field: where, message: 'is not a base64 transaction envelope' }],
      });
    }
  }

  private async ask<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw this.ledgerTrouble(error);
    }
  }

  private ledgerTrouble(error: unknown): ApiError {
    this.logger.error({ err: error }, 'ledger RPC failed during payment');
    return ledgerUnavailable(error, error instanceof LedgerRpcError ? ` (${error.kind})` : '');
  }
}

function replayed(): ApiError {
  return new ApiError(409, Code.PAYMENT_REPLAYED, 'This payment was already used; no new key is issued');
}
