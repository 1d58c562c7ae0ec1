import { createHash, randomInt } from 'node:crypto';
import type { LedgerNetwork } from '@rp/contracts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `rp_live_` (pubnet) or `rp_test_` (testnet) and 32 uniformly random base62 characters (~190 bits). */
export function generateApiKey(network: LedgerNetwork): string {
  let body = '';
  for (let i = 0; i < 32; i++) body += BASE62[randomInt(BASE62.length)];
  return `${network === 'ledger:pubnet' ? 'rp_live_' : 'rp_test_'}${body}`;
}

/** Keys are stored only as this hash; the key itself is shown once. */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}
