import { Address, Keypair, rpc, xdr } from '@stellar/stellar-sdk';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import { transactionResultCode } from '../transactions/submit';

/** Which of `addresses` have an account on the ledger (one batched `getLedgerEntries`). */
export async function accountsOnLedger(ledger: LedgerRpc, addresses: readonly string[]): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const keys = addresses.map((address) =>
    xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(address).xdrAccountId() })),
  );
  const { entries } = await ledger.getLedgerEntries(keys);
  return new Set(
    entries.map((entry) =>
      Address.fromScAddress(xdr.ScAddress.scAddressTypeAccount(entry.key.account().accountId())).toString(),
    ),
  );
}

/** The sequence number of an account on the ledger (a settlement lane's, before it settles). */
export async function accountSequence(ledger: LedgerRpc, address: string): Promise<string> {
  return (await ledger.getAccount(address)).sequenceNumber();
}

/** What `getTransaction` says about a settlement, in the terms a payment needs. */
export type SettlementStatus =
  | { status: 'SUCCESS'; ledger: number; closedAt: Date; feeCharged?: bigint }
  | { status: 'FAILED'; ledger: number; resultCode: string }
  | { status: 'NOT_FOUND'; latestLedgerCloseTime: Date };

export async function settlementStatus(ledger: LedgerRpc, hash: string): Promise<SettlementStatus> {
  const answer = await ledger.getTransaction(hash);
  if (answer.status === rpc.Api.GetTransactionStatus.SUCCESS) {
    return {
      status: 'SUCCESS',
      ledger: answer.ledger,
      closedAt: new Date(Number(answer.createdAt) * 1000),
      feeCharged: feeChargedOf(answer.resultXdr),
    };
  }
  if (answer.status === rpc.Api.GetTransactionStatus.FAILED) {
    return { status: 'FAILED', ledger: answer.ledger, resultCode: transactionResultCode(answer.resultXdr) };
  }
  return { status: 'NOT_FOUND', latestLedgerCloseTime: new Date(Number(answer.latestLedgerCloseTime) * 1000) };
}

function feeChargedOf(result: xdr.TransactionResult | undefined): bigint | undefined {
  if (!result) return undefined;
  return BigInt(result.feeCharged().toString());
}
