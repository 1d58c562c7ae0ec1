import { CAIP2_NETWORK, LEDGER_NETWORKS, type LedgerNetwork } from '@rp/contracts';
import { Networks, hash } from '@stellar/stellar-sdk';

/** A network name, passphrase or CAIP-2 id that none of the supported networks answers to. */
export class UnsupportedNetworkError extends Error {
  override readonly name = 'UnsupportedNetworkError';

  constructor(readonly value: string) {
    super(`unsupported ledger network: ${value}`);
  }
}

const PASSPHRASE: Readonly<Record<LedgerNetwork, string>> = {
  'ledger:pubnet': Networks.PUBLIC,
  'ledger:testnet': Networks.TESTNET,
};

/** The passphrase every signature on `network` commits to. */
export function networkPassphrase(network: LedgerNetwork): string {
  return PASSPHRASE[network];
}

export function networkFromPassphrase(passphrase: string): LedgerNetwork {
  const network = LEDGER_NETWORKS.find((candidate) => PASSPHRASE[candidate] === passphrase);
  if (!network) throw new UnsupportedNetworkError(passphrase);
  return network;
}

/** `stellar:pubnet` / `stellar:testnet`, the form x402 structures carry. */
export function caip2Of(network: LedgerNetwork): string {
  return CAIP2_NETWORK[network];
}

export function networkFromCaip2(id: string): LedgerNetwork {
  const network = LEDGER_NETWORKS.find((candidate) => CAIP2_NETWORK[candidate] === id);
  if (!network) throw new UnsupportedNetworkError(id);
  return network;
}

/** The network id: sha256 of the passphrase, as mixed into transaction and auth-entry hashes. */
export function networkId(passphrase: string): Buffer {
  return hash(Buffer.from(passphrase, 'utf8'));
}
