import { Injectable } from '@nestjs/common';
import { ErrorCode, SubscriptionErrorCode as Code, type PreparedPayment } from '@rp/contracts';
import {
  ASSUMED_LEDGER_SECONDS,
  AssistedSignatureError,
  type PaymentPayload,
  SimulationFailedError,
  X402_VERSION,
  attachAssistedSignatures,
  authorizationPreimages,
  buildExactTransfer,
  finalizeExactTransfer,
} from '@rp/ledger';
import { ApiError } from '@rp/platform';
import { LedgerSettlement } from '../payment/ledger-settlement';
import { ledgerUnavailable } from '../payment/payment-refusals';
import { MAX_TIMEOUT_SECONDS } from '../payment/payment-settings';
import { PaymentService } from '../payment/payment.service';

/** What `txJson` carries between prepare and complete. The server re-checks all of it on complete. */
interface PreparedTransaction {
  network: string;
  transaction: string;
}

export interface SignedPreparation {
  walletAddress: string;
  txJson: string;
  preimageXdrs: string[];
  signedAuthEntries: string[];
  maxLedger: number;
}

/**
 * The server-assisted flow for wallets that can sign authorization entries but not build payments: prepare
 * builds and simulates the transfer and hands out the preimages; complete checks the signatures against the
 * payer (no RPC call before that) and turns the result into the same payment the direct flow accepts.
 */
@Injectable()
export class AssistedPaymentService {
  constructor(
    private readonly payments: PaymentService,
    private readonly settlement: LedgerSettlement,
  ) {}

  async prepare(walletAddress: string): Promise<PreparedPayment> {
    const settings = this.payments.settings();
    const ledger = this.settlement.ledger;
    if (!ledger) throw new Error('payment is not configured');
    let envelope: string;
    try {
      const assembled = await buildExactTransfer(ledger, walletAddress, this.payments.requirements());
      envelope = assembled.toEnvelope().toXDR('base64');
    } catch (error) {
      if (!(error instanceof SimulationFailedError)) throw ledgerUnavailable(error);
      throw new ApiError(422, Code.PAYMENT_SIMULATION_FAILED, `The wallet cannot make this payment: ${error.message}`);
    }
    const latest = await ledger.getLatestLedger().catch((error: unknown) => {
      throw ledgerUnavailable(error);
    });
    const maxLedger = latest.sequence + Math.ceil(MAX_TIMEOUT_SECONDS / ASSUMED_LEDGER_SECONDS);
    const prepared = authorizationPreimages(envelope, settings.passphrase, maxLedger);
    const txJson: PreparedTransaction = { network: settings.caip2, transaction: prepared.envelope };
    return {
      txJson: JSON.stringify(txJson),
      preimageXdrs: prepared.preimageXdrs,
      maxLedger,
      networkPassphrase: settings.passphrase,
      x402Version: X402_VERSION,
    };
  }

  /**
   * The signed payment as a direct-flow payload: signatures verified locally first, then the transfer simulated
   * again with them (signature checks cost resources) for its final fee.
   */
  async signedPayload(input: SignedPreparation): Promise<PaymentPayload> {
    const settings = this.payments.settings();
    const prepared = parseTxJson(input.txJson);
    let transaction: string;
    try {
      transaction = attachAssistedSignatures({
        envelope: prepared.transaction,
        passphrase: settings.passphrase,
        payer: input.walletAddress,
        preimageXdrs: input.preimageXdrs,
        signatures: input.signedAuthEntries,
        maxLedger: input.maxLedger,
      });
    } catch (error) {
      if (!(error instanceof AssistedSignatureError)) throw error;
      const detail = { details: [{ field: error.field, message: error.message.replace(/^\S+ /, '') }] };
      if (error.field.startsWith('signedAuthEntries['))
        throw new ApiError(402, Code.PAYMENT_BAD_SIGNATURE, error.message, detail);
      throw new ApiError(400, ErrorCode.VALIDATION_FAILED, error.message, detail);
    }
    const ledger = this.settlement.ledger;
    if (!ledger) throw new Error('payment is not configured');
    try {
      transaction = await finalizeExactTransfer(ledger, transaction, settings.passphrase);
    } catch (error) {
      if (!(error instanceof SimulationFailedError)) throw ledgerUnavailable(error);
      throw new ApiError(402, Code.PAYMENT_SIMULATION_FAILED, `The ledger refuses this payment: ${error.message}`);
    }
    return {
      x402Version: X402_VERSION,
      accepted: { ...this.payments.requirements(), network: prepared.network },
      payload: { transaction },
    };
  }
}

function parseTxJson(txJson: string): PreparedTransaction {
  let parsed: unknown;
  try {
    parsed = JSON.parse(txJson);
  } catch {
    parsed = undefined;
  }
  const value = parsed as Partial<PreparedTransaction> | undefined;
  if (!value || typeof value.transaction !== 'string' || typeof value.network !== 'string') {
    throw new ApiError(400, ErrorCode.VALIDATION_FAILED, 'txJson must be the txJson prepare returned', {
      details: [{ field: 'txJson', message: 'must be the txJson prepare returned' }],
    });
  }
  return { network: value.network, transaction: value.transaction };
}
