import type { LedgerNetwork } from '@rp/contracts';

/** Circle's USDC Stellar Asset Contract on each network. */
export const USDC_CONTRACT: Readonly<Record<LedgerNetwork, string>> = {
  'ledger:pubnet': 'CCW67TSZV3SSS2HXMBQ5JFGCKJNXKZM7UQUWUZPUTHXSTZLEO7SJMI75',
  'ledger:testnet': 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA',
};

export function usdcContract(network: LedgerNetwork): string {
  return USDC_CONTRACT[network];
}
