import { SubscriptionErrorCode as Code } from '@rp/contracts';
import { ApiError } from '@rp/platform';
import type { ExactRule } from '@rp/ledger';

/** 402 code and message of each exact-scheme rule (checked locally, before any RPC call). */
export const RULE_REFUSALS: Readonly<Record<ExactRule, { code: string; message: string }>> = {
  wrong_operation: {
    code: Code.PAYMENT_WRONG_OPERATION,
    message: 'The payment must be one transfer(from, payTo, amount) call',
  },
  wrong_asset: { code: Code.PAYMENT_WRONG_ASSET, message: 'The payment transfers another asset than the one required' },
  wrong_recipient: { code: Code.PAYMENT_WRONG_RECIPIENT, message: 'The payment goes to another address than payTo' },
  wrong_amount: { code: Code.PAYMENT_WRONG_AMOUNT, message: 'The payment is not for exactly the required amount' },
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
  expired: { code: Code.PAYMENT_EXPIRED, message: "The payment's authorization has expired" },
  expires_too_late: {
    code: Code.PAYMENT_EXPIRES_TOO_LATE,
    message: "The payment's authorization lives longer than maxTimeoutSeconds allows",
  },
};

/** Reasons `@x402/stellar`'s facilitator gives, as our codes. Unlisted reasons are settlement failures. */
const FACILITATOR_REASONS: Readonly<Record<string, string>> = {
  invalid_x402_version: Code.PAYMENT_VERSION_UNSUPPORTED,
  unsupported_scheme: Code.PAYMENT_SCHEME_UNSUPPORTED,
  network_mismatch: Code.PAYMENT_NETWORK_MISMATCH,
  invalid_network: Code.PAYMENT_NETWORK_MISMATCH,
  invalid_exact_stellar_payload_malformed: Code.PAYMENT_WRONG_OPERATION,
  invalid_exact_stellar_payload_wrong_operation: Code.PAYMENT_WRONG_OPERATION,
  invalid_exact_stellar_payload_wrong_function_name: Code.PAYMENT_WRONG_OPERATION,
  invalid_exact_stellar_payload_multiple_transfers: Code.PAYMENT_WRONG_OPERATION,
  invalid_exact_stellar_payload_unsafe_tx_or_op_source: Code.PAYMENT_SPONSOR_AS_PAYER,
  invalid_exact_stellar_payload_facilitator_is_payer: Code.PAYMENT_SPONSOR_AS_PAYER,
  invalid_exact_stellar_payload_wrong_asset: Code.PAYMENT_WRONG_ASSET,
  invalid_exact_stellar_payload_event_wrong_asset: Code.PAYMENT_WRONG_ASSET,
  invalid_exact_stellar_payload_wrong_recipient: Code.PAYMENT_WRONG_RECIPIENT,
  invalid_exact_stellar_payload_event_wrong_to: Code.PAYMENT_WRONG_RECIPIENT,
  invalid_exact_stellar_payload_wrong_amount: Code.PAYMENT_WRONG_AMOUNT,
  invalid_exact_stellar_payload_event_wrong_amount: Code.PAYMENT_WRONG_AMOUNT,
  invalid_exact_stellar_payload_simulation_failed: Code.PAYMENT_SIMULATION_FAILED,
  invalid_exact_stellar_payload_no_transfer_events: Code.PAYMENT_SIMULATION_FAILED,
  invalid_exact_stellar_payload_event_not_transfer: Code.PAYMENT_SIMULATION_FAILED,
  invalid_exact_stellar_payload_event_wrong_from: Code.PAYMENT_SIMULATION_FAILED,
  invalid_exact_stellar_payload_event_missing_contract_id: Code.PAYMENT_SIMULATION_FAILED,
  invalid_exact_stellar_payload_fee_below_minimum: Code.PAYMENT_FEE_OUT_OF_BOUNDS,
  invalid_exact_stellar_payload_fee_exceeds_maximum: Code.PAYMENT_FEE_OUT_OF_BOUNDS,
  invalid_exact_stellar_payload_no_auth_entries: Code.PAYMENT_UNSIGNED,
  invalid_exact_stellar_payload_missing_payer_signature: Code.PAYMENT_UNSIGNED,
  invalid_exact_stellar_payload_unexpected_pending_signatures: Code.PAYMENT_UNSAFE_AUTHORIZATION,
  invalid_exact_stellar_payload_unsupported_credential_type: Code.PAYMENT_UNSAFE_AUTHORIZATION,
  invalid_exact_stellar_payload_has_subinvocations: Code.PAYMENT_UNSAFE_AUTHORIZATION,
  invalid_exact_stellar_payload_facilitator_in_auth: Code.PAYMENT_UNSAFE_AUTHORIZATION,
  invalid_exact_stellar_signature_expiration_too_far: Code.PAYMENT_EXPIRES_TOO_LATE,
};

/** Reasons that mean the ledger could not be asked, not that the payment is wrong. */
const LEDGER_TROUBLE = new Set(['unexpected_verify_error', 'unexpected_settle_error']);

export function facilitatorRefusal(reason: string): { status: number; code: string } {
  if (LEDGER_TROUBLE.has(reason)) return { status: 502, code: Code.LEDGER_UNAVAILABLE };
  return { status: 402, code: FACILITATOR_REASONS[reason] ?? Code.PAYMENT_SETTLEMENT_FAILED };
}

/** 502 for an RPC that could not be reached while taking a payment; nothing was charged. */
export function ledgerUnavailable(cause: unknown, detail = ''): ApiError {
  return new ApiError(502, Code.LEDGER_UNAVAILABLE, `The ledger could not be reached${detail}; nothing was charged`, {
    headers: { 'Retry-After': '5' },
    cause,
  });
}
