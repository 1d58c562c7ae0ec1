import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * AES-256-GCM for bot tokens and webhook URLs at rest: `v1.<iv>.<tag>.<ciphertext>` (base64url). Without a key
 * (development and tests only; production requires `NOTIFICATIONS_ENCRYPTION_KEY`) a fixed development key is used,
 * so stored values are still never in clear.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: string | undefined) {
    this.key = key ? decodeKey(key) : createHash('sha256').update('rp-notifications-development-key').digest();
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), body]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}

function decodeKey(key: string): Buffer {
  const bytes = /^[0-9a-fA-F]{64}$/.test(key) ? Buffer.from(key, 'hex') : Buffer.from(key, 'base64');
  if (bytes.length !== 32) throw new Error('NOTIFICATIONS_ENCRYPTION_KEY must be 32 bytes');
  return bytes;
}
