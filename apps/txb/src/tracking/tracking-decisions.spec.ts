import type { ProposalRecord } from '../proposals/proposal';
import { CLOCK_MARGIN_SECONDS, POLL_MS, REJECTION_SETTLE_MS, RESEND_AFTER_MS, nextStep } from './tracking-decisions';

const NOW = 1_800_000_000_000;
const EXPIRES = NOW + 120_000;
const MAX_TIME = Math.floor(EXPIRES / 1000);

function proposal(fields: Partial<ProposalRecord>): ProposalRecord {
  return {
    id: 'txp-1800000000000-abcdef',
    accountId: 'key',
    walletAddress: 'G',
    action: 'REPAY',
    status: 'submitted',
    createdAt: NOW - 10_000,
    expiresAt: EXPIRES,
    updatedAt: NOW - 1000,
    hash: 'a'.repeat(64),
    transaction: { transactionXdr: '', sourceAddress: 'G', operations: 1, createdAt: '' },
    metadata: { poolAddress: 'C', tokenId: 'C', amount: '1', action: 'REPAY' },
    submittedAt: NOW - 1000,
    lastSentAt: NOW - 1000,
    ...fields,
  };
}

const notFound = (latestCloseTime = MAX_TIME - 60) => ({ kind: 'not-found', latestCloseTime }) as const;

describe('what the tracker does next', () => {
  it('confirms only what the ledger shows succeeded', () => {
    expect(nextStep(proposal({}), { kind: 'confirmed', ledger: 42 }, NOW)).toEqual({ kind: 'confirm', ledger: 42 });
  });

  it('fails what the ledger shows failed, with its result code and contract error', () => {
    const failure = { resultCode: 'txFailed', contractError: { code: 1205, name: 'InvalidHf' } };
    expect(nextStep(proposal({}), { kind: 'failed', ledger: 43, failure }, NOW)).toEqual({
      kind: 'fail',
      ledger: 43,
      failure: { reason: 'failed', ...failure },
    });
  });

  it('waits while the transaction is not in a ledger yet and its time bound has not passed', () => {
    expect(nextStep(proposal({}), notFound(), NOW)).toEqual({ kind: 'wait', delayMs: POLL_MS });
  });

  it('fails as expired once a ledger closed after the time bound without it', () => {
    expect(nextStep(proposal({}), notFound(MAX_TIME + 1), NOW)).toEqual({
      kind: 'fail',
      failure: { reason: 'expired', resultCode: 'txTooLate' },
    });
  });

  it('fails as expired when our clock is well past the time bound even if no ledger closed since', () => {
    const later = (MAX_TIME + CLOCK_MARGIN_SECONDS + 1) * 1000;
    expect(nextStep(proposal({}), notFound(), later)).toMatchObject({ kind: 'fail' });
    // Just past it, the ledger may still be catching up: keep following (here, by sending again).
    expect(nextStep(proposal({}), notFound(), (MAX_TIME + 1) * 1000).kind).not.toBe('fail');
  });

  it('sends a signed proposal (never reported accepted) again: its submitter may have died around the send', () => {
    expect(nextStep(proposal({ status: 'signed', submittedAt: undefined }), notFound(), NOW)).toEqual({
      kind: 'resend',
    });
  });

  it('sends a submitted transaction again when the ledger still does not show it after a while', () => {
    expect(nextStep(proposal({ lastSentAt: NOW - RESEND_AFTER_MS }), notFound(), NOW)).toEqual({ kind: 'resend' });
    expect(nextStep(proposal({ lastSentAt: NOW - RESEND_AFTER_MS + 1 }), notFound(), NOW)).toMatchObject({
      kind: 'wait',
    });
  });

  it('fails a refused resend only once the ledger has had time to show an earlier copy', () => {
    const rejection = { reason: 'rejected' as const, resultCode: 'txBadSeq' };
    const refusedJustNow = proposal({ status: 'signed', rejectedAt: NOW - 1000, rejection });
    expect(nextStep(refusedJustNow, notFound(), NOW)).toEqual({ kind: 'wait', delayMs: POLL_MS });
    const refusedEarlier = proposal({ status: 'signed', rejectedAt: NOW - REJECTION_SETTLE_MS, rejection });
    expect(nextStep(refusedEarlier, notFound(), NOW)).toEqual({ kind: 'fail', failure: rejection });
    expect(nextStep(refusedJustNow, { kind: 'confirmed', ledger: 9 }, NOW)).toEqual({ kind: 'confirm', ledger: 9 });
  });
});
