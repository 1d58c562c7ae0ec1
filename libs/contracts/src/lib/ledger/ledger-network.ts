/** Public network identifiers of the API (`ledger:<net>`) and their CAIP-2 form used by x402 structures. */
export const LEDGER_NETWORKS = ['ledger:pubnet', 'ledger:testnet'] as const;
export type LedgerNetwork = (typeof LEDGER_NETWORKS)[number];

export const CAIP2_NETWORK: Readonly<Record<LedgerNetwork, `stellar:${'pubnet' | 'testnet'}`>> = {
  'ledger:pubnet': 'stellar:pubnet',
  'ledger:testnet': 'stellar:testnet',
};

export function isLedgerNetwork(value: unknown): value is LedgerNetwork {
  return typeof value === 'string' && (LEDGER_NETWORKS as readonly string[]).includes(value);
}
