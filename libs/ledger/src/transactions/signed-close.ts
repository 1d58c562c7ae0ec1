import { type Transaction, TransactionBuilder, rpc } from '@stellar/stellar-sdk';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import type { LedgerWallet } from '../wallet/ledger-wallet';
import { accountLedgerKey } from './accounts';
import { transactionResultCode } from './submit';

/**
 * A transaction signed ahead of need and kept ready to send (the agent's presigned close): the parsed transaction
 * (sending it needs no parsing), its hash, the sequence number it consumes and the end of its time bounds.
 */
export interface SignedAhead {
  readonly transaction: Transaction;
  readonly hash: string;
  /** The sequence number the transaction uses (the account's current one plus one when it was built). */
  readonly sequence: string;
  /** Unix seconds: the last moment the network may include it. */
  readonly validUntil: number;
  /** The signed envelope, base64. */
  readonly envelope: string;
}

/** Signs an unsigned envelope of `passphrase`'s network with the wallet and keeps it ready to send. */
export function signAhead(wallet: LedgerWallet, unsignedXdr: string, passphrase: string): SignedAhead {
  const parsed = TransactionBuilder.fromXDR(unsignedXdr, passphrase);
  if (!('sequence' in parsed)) throw new TypeError('a fee-bump envelope cannot be signed ahead');
  const transaction = parsed as Transaction;
  wallet.signTransaction(transaction);
  return {
    transaction,
    hash: transaction.hash().toString('hex'),
    sequence: transaction.sequence,
    validUntil: Number(transaction.timeBounds?.maxTime ?? 0),
    envelope: transaction.toXDR(),
  };
}

export type SendAnswer =
  | { readonly status: 'PENDING' | 'DUPLICATE'; readonly hash: string }
  /** Refused at submission: never applied as it is (`txBadSeq`, `txTooLate`, `txBadAuth`, ...). */
  | { readonly status: 'ERROR'; readonly hash: string; readonly resultCode: string }
  | { readonly status: 'TRY_AGAIN_LATER'; readonly hash: string };

/** `sendTransaction` once, its answer reduced to what a sender decides on. */
export async function sendSigned(ledger: LedgerRpc, transaction: Transaction): Promise<SendAnswer> {
  const sent = await ledger.sendTransaction(transaction);
  const hash = sent.hash || transaction.hash().toString('hex');
  if (sent.status === 'ERROR') return { status: 'ERROR', hash, resultCode: transactionResultCode(sent.errorResult) };
  return { status: sent.status, hash };
}

export type TransactionState =
  | { readonly state: 'SUCCESS'; readonly ledger: number }
  | { readonly state: 'FAILED'; readonly ledger: number; readonly resultCode: string }
  /** Not in a ledger (yet): `closedAt` is when the latest ledger closed, unix seconds. */
  | { readonly state: 'NOT_FOUND'; readonly latestLedger: number; readonly closedAt: number };

/** Where a transaction stands on the ledger. */
export async function transactionState(ledger: LedgerRpc, hash: string): Promise<TransactionState> {
  const answer = await ledger.getTransaction(hash);
  if (answer.status === rpc.Api.GetTransactionStatus.SUCCESS) return { state: 'SUCCESS', ledger: answer.ledger };
  if (answer.status === rpc.Api.GetTransactionStatus.FAILED) {
    return { state: 'FAILED', ledger: answer.ledger, resultCode: transactionResultCode(answer.resultXdr) };
  }
  return { state: 'NOT_FOUND', latestLedger: answer.latestLedger, closedAt: Number(answer.latestLedgerCloseTime) };
}

/** An account's sequence number and native (XLM) balance in stroops; `undefined` when it does not exist. */
export interface AccountBalance {
  readonly address: string;
  readonly sequence: string;
  readonly nativeBalance: bigint;
  readonly latestLedger: number;
}

export async function readAccountBalance(ledger: LedgerRpc, address: string): Promise<AccountBalance | undefined> {
  const { entries, latestLedger } = await ledger.getLedgerEntries([accountLedgerKey(address)]);
  const entry = entries[0];
  if (!entry) return undefined;
  const account = entry.val.account();
  return {
    address,
    sequence: account.seqNum().toString(),
    nativeBalance: BigInt(account.balance().toString()),
    latestLedger,
  };
}
