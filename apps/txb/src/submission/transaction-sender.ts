import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import {
  BLEND_POOL_CALL_ERRORS,
  type LedgerFailure,
  LedgerRpcError,
  type SignedTransaction,
  describeLedgerFailure,
} from '@rp/ledger';
import { TxbLedger } from '../ledger/txb-ledger';

export type SendOutcome =
  | { kind: 'accepted'; duplicate: boolean }
  | { kind: 'rejected'; failure: LedgerFailure }
  /** The RPC kept answering TRY_AGAIN_LATER. */
  | { kind: 'busy' }
  /** No answer at all: the transaction may or may not have reached the network. */
  | { kind: 'unreachable'; error: LedgerRpcError };

export type LedgerVerdict =
  | { kind: 'confirmed'; ledger: number }
  | { kind: 'failed'; ledger: number; failure: LedgerFailure }
  /** Not in any ledger the RPC knows; `latestCloseTime` (unix seconds) says how far the ledger has got. */
  | { kind: 'not-found'; latestCloseTime: number };

/** Rounds of `sendTransaction` while the RPC answers TRY_AGAIN_LATER (each round is the client's own retries). */
const BUSY_ROUNDS = 3;
const BUSY_PAUSE_MS = 500;

/**
 * The wire to the network for submission and tracking: `sendTransaction` and `getTransaction` on the configured
 * RPC, or on an allowed RPC the caller named.
 */
@Injectable()
export class TransactionSender {
  constructor(private readonly ledger: TxbLedger) {}

  /**
   * Sends a signed transaction. DUPLICATE (a copy is already queued) counts as accepted; TRY_AGAIN_LATER is retried
   * with backoff (the RPC client's, then this method's rounds).
   */
  async send(transaction: SignedTransaction, rpcUrl?: string): Promise<SendOutcome> {
    const rpc = this.ledger.rpcFor(rpcUrl);
    for (let round = 1; ; round += 1) {
      try {
        const answer = await rpc.sendTransaction(transaction);
        if (answer.status === 'PENDING' || answer.status === 'DUPLICATE') {
          return { kind: 'accepted', duplicate: answer.status === 'DUPLICATE' };
        }
        if (answer.status === 'ERROR') {
          return {
            kind: 'rejected',
            failure: describeLedgerFailure(answer.errorResult, answer.diagnosticEvents, BLEND_POOL_CALL_ERRORS),
          };
        }
      } catch (error) {
        if (!(error instanceof LedgerRpcError)) throw error;
        if (error.kind !== 'try-again-later') return { kind: 'unreachable', error };
      }
      if (round >= BUSY_ROUNDS) return { kind: 'busy' };
      await sleep(BUSY_PAUSE_MS * round);
    }
  }

  /** What the ledger says about a transaction: only SUCCESS is ever reported as confirmed. */
  async verdict(hash: string, rpcUrl?: string): Promise<LedgerVerdict> {
    const answer = await this.ledger.rpcFor(rpcUrl).getTransaction(hash);
    if (answer.status === 'SUCCESS') return { kind: 'confirmed', ledger: answer.ledger };
    if (answer.status === 'FAILED') {
      return {
        kind: 'failed',
        ledger: answer.ledger,
        failure: describeLedgerFailure(answer.resultXdr, answer.diagnosticEventsXdr, BLEND_POOL_CALL_ERRORS),
      };
    }
    return { kind: 'not-found', latestCloseTime: Number(answer.latestLedgerCloseTime) };
  }
}
