import { type FeeBumpTransaction, type Transaction, rpc, type xdr } from '@stellar/stellar-sdk';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import { sleep } from '../rpc/backoff';
import { type ContractErrorInfo, type ContractErrorNames, decodeContractError } from './contract-errors';

export interface SubmissionOptions {
  /** Pause between getTransaction polls; default 1 s. */
  pollIntervalMs?: number;
  /** Give up waiting after this long; default 60 s. The transaction may still land later (until its time bound). */
  timeoutMs?: number;
}

export interface SubmissionOutcome {
  hash: string;
  status: 'SUCCESS' | 'FAILED';
  ledger: number;
  /** The invoked contract function's return value (successful Soroban invocations). */
  returnValue?: xdr.ScVal;
  /** Result code name of a FAILED transaction, e.g. `txFailed`. */
  resultCode?: string;
}

/** The network refused the transaction at submission (status ERROR): it will never be applied as it is. */
export class SubmissionRejectedError extends Error {
  override readonly name = 'SubmissionRejectedError';

  constructor(
    readonly hash: string,
    /** e.g. `txBadSeq`, `txBadAuth`, `txInsufficientFee`, `txTooLate`. */
    readonly resultCode: string,
  ) {
    super(`transaction ${hash} rejected: ${resultCode}`);
  }
}

/** Submitted, but not seen in a closed ledger in time. The outcome is unknown, not failed. */
export class SubmissionTimeoutError extends Error {
  override readonly name = 'SubmissionTimeoutError';

  constructor(
    readonly hash: string,
    readonly waitedMs: number,
  ) {
    super(`transaction ${hash} not seen in a ledger after ${waitedMs} ms`);
  }
}

/**
 * The result code name of a transaction result. For a fee bump whose inner transaction failed, the inner code
 * (`txBadSeq` tells more than `txFeeBumpInnerFailed`).
 */
export function transactionResultCode(result: xdr.TransactionResult | undefined): string {
  if (!result) return 'unknown';
  const outcome = result.result();
  const name = outcome.switch().name;
  if (name === 'txFeeBumpInnerSuccess' || name === 'txFeeBumpInnerFailed') {
    return outcome.innerResultPair().result().result().switch().name;
  }
  return name;
}

/** Why the network refused (status ERROR) or failed (status FAILED) a transaction, in the network's own words. */
export interface LedgerFailure {
  /** `txBadSeq`, `txBadAuth`, `txTooLate`, `txFailed`, ... (the inner code of a fee bump). */
  resultCode: string;
  /** The contract error a failed invocation ended with, when its events name one (Blend: 1205 InvalidHf). */
  contractError?: ContractErrorInfo;
}

export function describeLedgerFailure(
  result: xdr.TransactionResult | undefined,
  events: readonly xdr.DiagnosticEvent[] | undefined,
  names?: ContractErrorNames,
): LedgerFailure {
  const contractError = events && events.length > 0 ? decodeContractError(events, names) : undefined;
  return { resultCode: transactionResultCode(result), ...(contractError && { contractError }) };
}

/** Sends a signed transaction and polls until it is in a ledger. DUPLICATE means an earlier send got through. */
export async function submitAndWait(
  ledger: LedgerRpc,
  signedTx: Transaction | FeeBumpTransaction,
  options: SubmissionOptions = {},
): Promise<SubmissionOutcome> {
  const { pollIntervalMs = 1000, timeoutMs = 60_000 } = options;
  const started = Date.now();
  const sent = await ledger.sendTransaction(signedTx);
  const hash = sent.hash || signedTx.hash().toString('hex');
  if (sent.status === 'ERROR') throw new SubmissionRejectedError(hash, transactionResultCode(sent.errorResult));

  for (;;) {
    const answer = await ledger.getTransaction(hash);
    if (answer.status === rpc.Api.GetTransactionStatus.SUCCESS) {
      return { hash, status: 'SUCCESS', ledger: answer.ledger, returnValue: answer.returnValue };
    }
    if (answer.status === rpc.Api.GetTransactionStatus.FAILED) {
      return { hash, status: 'FAILED', ledger: answer.ledger, resultCode: transactionResultCode(answer.resultXdr) };
    }
    const waited = Date.now() - started;
    if (waited >= timeoutMs) throw new SubmissionTimeoutError(hash, waited);
    await sleep(Math.min(pollIntervalMs, timeoutMs - waited));
  }
}
