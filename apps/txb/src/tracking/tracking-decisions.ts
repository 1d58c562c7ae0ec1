import type { ProposalFailure, ProposalRecord } from '../proposals/proposal';
import type { LedgerVerdict } from '../submission/transaction-sender';

export type TrackingStep =
  | { readonly kind: 'confirm'; readonly ledger: number }
  | { readonly kind: 'fail'; readonly failure: ProposalFailure; readonly ledger?: number }
  | { readonly kind: 'resend' }
  | { readonly kind: 'wait'; readonly delayMs: number };

/** How often a transaction the ledger does not show yet is asked about again. */
export const POLL_MS = 1000;
/** A submitted transaction the ledger still does not show after this long is sent again (the network may drop it). */
export const RESEND_AFTER_MS = 15_000;
/** A resend the network refused is a failure only if the ledger still shows nothing this much later. */
export const REJECTION_SETTLE_MS = 6000;
/** Our clock against the ledger's: past its time bound by this much, a transaction can no longer be included. */
export const CLOCK_MARGIN_SECONDS = 60;

/**
 * What the tracker does next with a signed or submitted proposal, given what the ledger says. Confirmation comes
 * only from the ledger showing the transaction; failure from the ledger showing it failed, or from its time bound
 * having passed with the ledger not showing it (after which it can never be included).
 */
export function nextStep(record: ProposalRecord, verdict: LedgerVerdict, now: number): TrackingStep {
  if (verdict.kind === 'confirmed') return { kind: 'confirm', ledger: verdict.ledger };
  if (verdict.kind === 'failed') {
    return { kind: 'fail', ledger: verdict.ledger, failure: { reason: 'failed', ...verdict.failure } };
  }
  const maxTime = Math.floor(record.expiresAt / 1000);
  const tooLate = verdict.latestCloseTime > maxTime || now / 1000 > maxTime + CLOCK_MARGIN_SECONDS;
  if (tooLate) {
    return {
      kind: 'fail',
      failure: record.rejection ?? { reason: 'expired', resultCode: 'txTooLate' },
    };
  }
  if (record.rejectedAt !== undefined) {
    if (now - record.rejectedAt >= REJECTION_SETTLE_MS && record.rejection) {
      return { kind: 'fail', failure: record.rejection };
    }
    return { kind: 'wait', delayMs: POLL_MS };
  }
  // Signed but never reported accepted: the replica that signed it may have died before or after sending.
  if (record.status === 'signed') return { kind: 'resend' };
  const lastSent = record.lastSentAt ?? record.submittedAt ?? record.updatedAt;
  if (now - lastSent >= RESEND_AFTER_MS) return { kind: 'resend' };
  return { kind: 'wait', delayMs: POLL_MS };
}
