import type { LedgerFailure } from '@rp/ledger';

/** Why a submission was refused; the HTTP edge gives each its status and code. */
export type SubmitRefusal =
  | { readonly code: 'RPC_URL_NOT_ALLOWED' }
  | { readonly code: 'MALFORMED_ENVELOPE'; readonly message: string }
  | { readonly code: 'PROPOSAL_NOT_FOUND' }
  | { readonly code: 'PROPOSAL_EXPIRED'; readonly id: string; readonly expiresAt: string }
  | { readonly code: 'TRANSACTION_UNSIGNED' }
  | { readonly code: 'WRONG_NETWORK'; readonly passphrase: string }
  | { readonly code: 'SUBMISSION_FAILED'; readonly txHash: string; readonly failure: LedgerFailure }
  /** The RPC kept asking to try later; the transaction stays with the tracker, which resends it. */
  | { readonly code: 'LEDGER_BUSY'; readonly txHash: string }
  /** The RPC did not answer: the transaction may have reached the network; the tracker finds out. */
  | { readonly code: 'LEDGER_UNAVAILABLE'; readonly txHash: string };

export type SubmitOutcome =
  | { readonly ok: true; readonly txHash: string }
  | { readonly ok: false; readonly refusal: SubmitRefusal };
