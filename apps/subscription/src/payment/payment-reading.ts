import {
  type ExactExpectation,
  type ExactTransfer,
  MalformedTransferError,
  type PaymentPayload,
  X402_VERSION,
  brokenExactRule,
  paymentNonce,
  readExactTransfer,
} from '@rp/ledger';
import type { PaymentRefusal } from './payment-refusals';
import type { PaymentSettings } from './payment-settings';

/** A payment that passed every rule that needs no RPC call. */
export interface ReadPayment {
  transfer: ExactTransfer;
  payer: string;
  /** The payer's authorization nonce: with the payer, it identifies the payment. */
  nonce: string;
  /** The payer's authorization is dead after this ledger. */
  authExpiresLedger: number;
}

/** What the rules expect of every payment under these settings. */
export function expectationOf(settings: PaymentSettings): ExactExpectation {
  return {
    asset: settings.asset,
    payTo: settings.payTo,
    amount: settings.amount,
    sponsors: settings.sponsorAccounts,
    passphrase: settings.passphrase,
  };
}

/**
 * Reads a payment and checks every rule that needs no RPC call: x402 version, scheme and network, one
 * `transfer(payer, payTo, amount)` of the asset, no self-transfer, the sponsor nowhere, and the payer's signature
 * over the authorization for this network. A field a refusal names is within the payment (`payload.transaction`):
 * the HTTP edge says where the payment came from (`PaymentAnswers.refusal`).
 */
export function readPayment(payload: PaymentPayload, settings: PaymentSettings): ReadPayment | PaymentRefusal {
  if (payload.x402Version !== X402_VERSION) {
    return { kind: 'unsupported', what: 'version', detail: `Only x402Version ${X402_VERSION} is accepted` };
  }
  if (payload.accepted.scheme !== 'exact') {
    return { kind: 'unsupported', what: 'scheme', detail: 'Only scheme exact is accepted' };
  }
  if (payload.accepted.network !== settings.caip2) {
    return {
      kind: 'unsupported',
      what: 'network',
      detail: `The payment is for ${payload.accepted.network}, not ${settings.caip2}`,
    };
  }
  let transfer: ExactTransfer;
  try {
    transfer = readExactTransfer(payload.payload.transaction, settings.passphrase);
  } catch (error) {
    if (!(error instanceof MalformedTransferError)) throw error;
    return {
      kind: 'malformed',
      field: 'payload.transaction',
      message: 'is not a base64 transaction envelope',
    };
  }
  const broken = brokenExactRule(transfer, expectationOf(settings));
  if (broken) return { kind: 'rule', rule: broken };
  const payer = transfer.from ?? '';
  const expirations = transfer.authorizations.map((auth) => auth.expirationLedger ?? 0);
  return { transfer, payer, nonce: paymentNonce(transfer) ?? '', authExpiresLedger: Math.min(...expirations) };
}

export function isRefusal(value: ReadPayment | PaymentRefusal): value is PaymentRefusal {
  return 'kind' in value;
}
