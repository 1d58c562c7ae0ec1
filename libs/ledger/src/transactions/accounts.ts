import { Keypair, xdr } from '@stellar/stellar-sdk';
import { InvalidAddressError, isAccountAddress } from '../network/addresses';
import type { LedgerRpc } from '../rpc/ledger-rpc';

/** An account as a transaction needs it: its address and current sequence number. */
export interface AccountState {
  readonly address: string;
  /** The sequence number the account's last transaction used; the next one uses this plus one. */
  readonly sequence: string;
}

/** The ledger key of an account's entry. */
export function accountLedgerKey(address: string): xdr.LedgerKey {
  if (!isAccountAddress(address)) throw new InvalidAddressError('address');
  return xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(address).xdrAccountId() }));
}

/** Reads an account entry returned by `getLedgerEntries`. */
export function accountStateOf(address: string, entry: xdr.LedgerEntryData): AccountState {
  return { address, sequence: entry.account().seqNum().toString() };
}

/**
 * The account with its current sequence number, or `undefined` when it does not exist on the ledger (the SDK's
 * `getAccount` throws a plain error for that, which callers cannot tell from a failure).
 */
export async function findAccount(rpc: LedgerRpc, address: string): Promise<AccountState | undefined> {
  const { entries } = await rpc.getLedgerEntries([accountLedgerKey(address)]);
  const entry = entries[0];
  return entry ? accountStateOf(address, entry.val) : undefined;
}
