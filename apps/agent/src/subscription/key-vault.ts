import { SealedBox } from '@rp/platform-core';
import { hkdfSync } from 'node:crypto';

/**
 * Seals the agent's API key (and its signed payments) for the database: `SealedBox` (AES-256-GCM) with a key derived
 * from the mnemonic by HKDF-SHA256 (salt `rp-agent:<purpose>`, `rp-agent:api-key` for the key; info: the wallet
 * address). Whoever reads the database without the mnemonic learns nothing; the mnemonic itself is never stored.
 */
export class KeyVault extends SealedBox {
  constructor(mnemonic: string, walletAddress: string, purpose: 'api-key' | 'payment' = 'api-key') {
    const salt = `rp-agent:${purpose}`;
    const key = hkdfSync('sha256', Buffer.from(mnemonic.normalize('NFKD'), 'utf8'), salt, walletAddress, 32);
    super(new Uint8Array(key), 'not a sealed key of this agent');
  }
}
