import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { type PreparedPayment } from '@rp/contracts';
import {
  AssistedSignatureError,
  type PaymentPayload,
  SimulationFailedError,
  X402_VERSION,
  attachAssistedSignatures,
  authorizationPreimages,
  buildExactTransfer,
} from '@rp/ledger';
import { PaymentContext } from '../payment/payment-context';
import type { PaymentRefusal } from '../payment/payment-refusals';
import { MAX_TIMEOUT_SECONDS } from '../payment/payment-settings';
import { PaymentAnswers } from './payment-answers';

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

/** What prepare could not do, in the payment service's terms. */
export type PrepareRefusal =
  | { kind: 'wallet_cannot_pay'; detail: string }
  | { kind: 'ledger_unavailable'; detail: string };

/**
 * The server-assisted flow for wallets that can sign authorization entries but not build payments: prepare builds
 * and simulates the transfer and hands out the preimages, for the expiration every party computes (`LedgerTiming`);
 * complete checks the signatures against the payer (no RPC call) and turns them into the same payment the direct
 * flow takes, whose every static rule and replay check then run before any simulation.
 */
@Injectable()
export class AssistedPaymentService {
  constructor(
    private readonly context: PaymentContext,
    private readonly answers: PaymentAnswers,
  ) {}

  async prepare(walletAddress: string): Promise<PreparedPayment | PrepareRefusal> {
    const { settings, ledger, timing } = this.context.current();
    let envelope: string;
    let maxLedger: number;
    try {
      const assembled = await buildExactTransfer(ledger, walletAddress, this.answers.requirements());
      envelope = assembled.toEnvelope().toXDR('base64');
      maxLedger = (await timing.window(MAX_TIMEOUT_SECONDS)).expirationLedger;
    } catch (error) {
      if (error instanceof SimulationFailedError) return { kind: 'wallet_cannot_pay', detail: error.message };
      return { kind: 'ledger_unavailable', detail: (error as Error).message };
    }
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
   * The signed payment as a direct-flow payload, with the digest an identical retry shares. Pure: the signatures
   * are verified locally and nothing is simulated here (the payment service simulates its own settlement, after
   * every static rule and the replay check).
   */
  signedPayload(input: SignedPreparation): { payload: PaymentPayload; digest: string } | PaymentRefusal {
    const { settings } = this.context.current();
    const prepared = parseTxJson(input.txJson);
    if (!prepared) return { kind: 'malformed', field: 'txJson', message: 'must be the txJson prepare returned' };
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
      if (error.field.startsWith('signedAuthEntries[')) {
        return { kind: 'rule', rule: 'bad_signature', field: error.field };
      }
      return { kind: 'malformed', field: error.field, message: error.reason };
    }
    const digest = createHash('sha256')
      .update(input.txJson)
      .update('\n')
      .update(input.signedAuthEntries.join(','))
      .digest('hex');
    return {
      payload: {
        x402Version: X402_VERSION,
        accepted: { ...this.answers.requirements(), network: prepared.network },
        payload: { transaction },
      },
      digest,
    };
  }
}

function parseTxJson(txJson: string): PreparedTransaction | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(txJson);
  } catch {
    return undefined;
  }
  const value = parsed as Partial<PreparedTransaction> | null;
  if (!value || typeof value.transaction !== 'string' || typeof value.network !== 'string') return undefined;
  return { network: value.network, transaction: value.transaction };
}
