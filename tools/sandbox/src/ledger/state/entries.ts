import { Address, Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import type { StorageDurability } from '../host/native-contract';
import { entryKeyOf, type EntryKey, type EntryReader, type StoredEntry } from './ledger-state';

/** Real XDR keys and entries for the kinds of entries the sandbox keeps: accounts and contract state. */

export function accountKey(address: string): EntryKey {
  return entryKeyOf(
    xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(address).xdrAccountId() })),
  );
}

export function contractDataKey(contract: string, key: xdr.ScVal, durability: 'persistent' | 'temporary'): EntryKey {
  return entryKeyOf(contractDataLedgerKey(contract, key, durability));
}

export function contractDataLedgerKey(
  contract: string,
  key: xdr.ScVal,
  durability: 'persistent' | 'temporary',
): xdr.LedgerKey {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: new Address(contract).toScAddress(),
      key,
      durability: durabilityXdr(durability),
    }),
  );
}

export function contractInstanceKey(contract: string): EntryKey {
  return contractDataKey(contract, xdr.ScVal.scvLedgerKeyContractInstance(), 'persistent');
}

export function contractCodeKey(hash: Buffer): EntryKey {
  return entryKeyOf(xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash })));
}

export function durabilityXdr(durability: 'persistent' | 'temporary'): xdr.ContractDataDurability {
  return durability === 'temporary' ? xdr.ContractDataDurability.temporary() : xdr.ContractDataDurability.persistent();
}

export function contractDataEntry(
  contract: string,
  key: xdr.ScVal,
  durability: Exclude<StorageDurability, 'instance'>,
  val: xdr.ScVal,
): xdr.LedgerEntryData {
  return xdr.LedgerEntryData.contractData(
    new xdr.ContractDataEntry({
      ext: new xdr.ExtensionPoint(0),
      contract: new Address(contract).toScAddress(),
      key,
      durability: durabilityXdr(durability),
      val,
    }),
  );
}

/** A classic account as the sandbox models it: the master key plus optional extra signers. */
export interface AccountState {
  readonly address: string;
  readonly balance: bigint;
  readonly sequence: bigint;
  readonly masterWeight: number;
  readonly thresholds: { readonly low: number; readonly medium: number; readonly high: number };
  readonly signers: readonly { readonly key: string; readonly weight: number }[];
}

export function readAccount(state: EntryReader, address: string): AccountState | undefined {
  const stored = state.get(accountKey(address));
  if (!stored) return undefined;
  const entry = stored.data.account();
  const thresholds = entry.thresholds();
  return {
    address,
    balance: BigInt(entry.balance().toString()),
    sequence: BigInt(entry.seqNum().toString()),
    masterWeight: thresholds[0],
    thresholds: { low: thresholds[1], medium: thresholds[2], high: thresholds[3] },
    signers: entry.signers().map((signer) => ({
      key: StrKey.encodeEd25519PublicKey(signer.key().ed25519()),
      weight: signer.weight(),
    })),
  };
}

export function accountEntry(account: AccountState): xdr.LedgerEntryData {
  const { low, medium, high } = account.thresholds;
  return xdr.LedgerEntryData.account(
    new xdr.AccountEntry({
      accountId: Keypair.fromPublicKey(account.address).xdrAccountId(),
      balance: xdr.Int64.fromString(account.balance.toString()),
      seqNum: xdr.Int64.fromString(account.sequence.toString()),
      numSubEntries: account.signers.length,
      inflationDest: null,
      flags: 0,
      homeDomain: '',
      thresholds: Buffer.from([account.masterWeight, low, medium, high]),
      signers: account.signers.map(
        (signer) =>
          new xdr.Signer({
            key: xdr.SignerKey.signerKeyTypeEd25519(StrKey.decodeEd25519PublicKey(signer.key)),
            weight: signer.weight,
          }),
      ),
      ext: new xdr.AccountEntryExt(0),
    }),
  );
}

export function storedEntry(data: xdr.LedgerEntryData, lastModified: number, liveUntil?: number): StoredEntry {
  return liveUntil === undefined ? { data, lastModified } : { data, lastModified, liveUntil };
}

export function toLedgerEntry(stored: StoredEntry): xdr.LedgerEntry {
  return new xdr.LedgerEntry({
    lastModifiedLedgerSeq: stored.lastModified,
    data: stored.data,
    ext: new xdr.LedgerEntryExt(0),
  });
}

/** The weight the given ed25519 public keys carry on an account: master key plus matching signers. */
export function signingWeight(account: AccountState, publicKeys: Iterable<string>): number {
  let weight = 0;
  for (const key of new Set(publicKeys)) {
    if (key === account.address) weight += account.masterWeight;
    else weight += account.signers.find((signer) => signer.key === key)?.weight ?? 0;
  }
  return weight;
}
