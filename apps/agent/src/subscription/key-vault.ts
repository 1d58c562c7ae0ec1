import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals the agent's API key (and its signed payments) for the database: AES-256-GCM with a key derived from the
 * mnemonic by HKDF-SHA256 (salt `rp-agent:<purpose>`, `rp-agent:api-key` for the key; info: the wallet address).
 * Whoever reads the database without the mnemonic learns nothing; the mnemonic itself is never stored.
 */
export class KeyVault {
  private readonly key: Buffer;

  constructor(mnemonic: string, walletAddress: string, purpose: 'api-key' | 'payment' = 'api-key') {
    const salt = `rp-agent:${purpose}`;
    this.key = Buffer.from(
      hkdfSync('sha256', Buffer.from(mnemonic.normalize('NFKD'), 'utf8'), salt, walletAddress, 32),
    );
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** The key sealed by `seal`; throws when it was sealed under another mnemonic or altered. */
  open(sealed: string): string {
    const [version, payload] = sealed.split('.', 2);
    if (version !== VERSION || !payload) throw new Error('not a sealed key of this agent');
    const bytes = Buffer.from(payload, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}
