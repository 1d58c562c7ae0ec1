import { inclusionFeeOf, transactionState, type TransactionState } from '@rp/ledger';
import type { Logger } from 'pino';
import type { AttemptOutcome, CloseAttempt } from '../store/agent-store';
import type { SentTransactions } from './close-audit';
import type { ChosenClose } from './close-choice';
import type { CloseRepricer } from './close-repricer';
import type { CloseSender, FinalState } from './close-sender';

/** A transaction not seen once a ledger closed this long after its time bound can never be included. */
const TOO_LATE_GRACE_S = 6;

export type FollowedClose = FinalState & { readonly hash: string };

/** The first attempt of a close, as sent. */
export function sentAttempt(close: ChosenClose, outcome: AttemptOutcome = 'sent', error?: string): CloseAttempt {
  return {
    fee: inclusionFeeOf(close.signed.envelope).toString(),
    at: new Date().toISOString(),
    txHash: close.signed.hash,
    outcome,
    ...(error !== undefined && { error }),
  };
}

/**
 * Follows a sent close to its final state and re-prices it while the ledger leaves it out (docs/agent.md,
 * Re-pricing): after every ledger that closed without it, the close is re-signed (`CloseRepricer`) at twice its bid
 * or the network's ask, within `MAX_CLOSE_FEE_STROOPS`, and sent. The network's queue holds one transaction per
 * account: the re-signed close is answered `TRY_AGAIN_LATER` while the earlier one still waits (stellar-core drops
 * it after 4 ledgers), and is sent again, at the next step's bid, at the next ledger. It stops when one of the
 * attempts is in the ledger, fails there, or the time bound passed; at the cap it keeps waiting. Every attempt
 * the network took (and every one it refused otherwise) is reported through `onSent`.
 */
export class CloseResend {
  constructor(
    private readonly sender: CloseSender,
    private readonly repricer: CloseRepricer,
    private readonly logger: Logger,
  ) {}

  async follow(
    first: ChosenClose,
    apiKey: string | undefined,
    onSent: (sent: SentTransactions) => Promise<void>,
    stopped: () => boolean,
  ): Promise<{ final: FollowedClose; sent: SentTransactions }> {
    const attempts: CloseAttempt[] = [sentAttempt(first)];
    let current = first;
    let next: ChosenClose | undefined;
    let seenLedger: number | undefined;
    const done = (final: FollowedClose, outcome: AttemptOutcome) => {
      for (const attempt of attempts) {
        if (attempt.txHash === final.hash) attempt.outcome = outcome;
        else if (attempt.outcome === 'sent') attempt.outcome = 'not_included';
      }
      return { final, sent: { txHash: final.hash, attempts } };
    };
    for (;;) {
      const seen = await this.stateOfAny(
        attempts.filter((attempt) => attempt.outcome !== 'failed').map((a) => a.txHash),
      );
      if (seen?.state.state === 'SUCCESS')
        return done({ state: 'confirmed', ledger: seen.state.ledger, hash: seen.hash }, 'included');
      if (seen?.state.state === 'FAILED') {
        return done({ state: 'failed', error: `ledger FAILED ${seen.state.resultCode}`, hash: seen.hash }, 'failed');
      }
      if (seen?.state.state === 'NOT_FOUND') {
        const { validUntil } = current.signed;
        if (validUntil > 0 && seen.state.closedAt > validUntil + TOO_LATE_GRACE_S) {
          return done(
            { state: 'failed', error: 'txTooLate: not included before its time bound', hash: current.signed.hash },
            'expired',
          );
        }
        if (seenLedger !== undefined && seen.state.latestLedger > seenLedger) {
          next = await this.reprice(current, next, apiKey, attempts);
          if (next?.signed.hash === attempts[attempts.length - 1].txHash) {
            current = next;
            next = undefined;
            await onSent({ txHash: current.signed.hash, attempts });
          }
        }
        seenLedger = seen.state.latestLedger;
      }
      if (stopped())
        return {
          final: { state: 'failed', error: 'agent stopped while following', hash: current.signed.hash },
          sent: { txHash: current.signed.hash, attempts },
        };
      await new Promise((resolve) => setTimeout(resolve, this.sender.followIntervalMs));
    }
  }

  /** The state of the first of `hashes` the ledger knows (newest first), else of the newest; undefined when the RPC fails. */
  private async stateOfAny(hashes: string[]): Promise<{ hash: string; state: TransactionState } | undefined> {
    let newest: { hash: string; state: TransactionState } | undefined;
    try {
      for (const hash of [...hashes].reverse()) {
        const state = await transactionState(this.sender.ledger.rpc, hash);
        if (state.state !== 'NOT_FOUND') return { hash, state };
        newest ??= { hash, state };
      }
    } catch {
      return undefined; // the RPC did not answer: ask again
    }
    return newest;
  }

  /**
   * One re-pricing step: the next bid re-signed (from the newest re-signed close, sent or not) and sent. Returns the
   * close sent (its attempt appended), a re-signed close the queue did not take yet, or `undefined`.
   */
  private async reprice(
    current: ChosenClose,
    pending: ChosenClose | undefined,
    apiKey: string | undefined,
    attempts: CloseAttempt[],
  ): Promise<ChosenClose | undefined> {
    let candidate = pending;
    try {
      const fee = await this.repricer.nextBid(pending ?? current);
      if (fee !== undefined) candidate = this.repricer.resigned(current, fee);
    } catch (error) {
      this.logger.warn({ txHash: current.signed.hash, err: (error as Error).message }, 'could not re-price the close');
    }
    if (!candidate) return undefined;
    const sent = await this.sender
      .send(candidate.signed, apiKey, true)
      .catch((error: unknown) => ({
        accepted: false as const,
        hash: candidate.signed.hash,
        error: (error as Error).message,
      }));
    const fee = inclusionFeeOf(candidate.signed.envelope).toString();
    this.logger.info(
      { txHash: candidate.signed.hash, replaces: current.signed.hash, fee, accepted: sent.accepted },
      'close re-priced',
    );
    if (sent.accepted) {
      for (const attempt of attempts) if (attempt.outcome === 'sent') attempt.outcome = 'not_included';
      attempts.push(sentAttempt(candidate));
      return candidate;
    }
    // The earlier attempt still waits in the network's queue: the next ledger tries again, bidding the next step.
    if (sent.error.includes('TRY_AGAIN_LATER') || sent.error.includes('LEDGER_BUSY')) return candidate;
    attempts.push(sentAttempt(candidate, 'failed', sent.error));
    return undefined;
  }
}
