import { type KeyObject, createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/**
 * Secrets at rest (the agent's API key and payments, the notifications' bot tokens and webhook URLs): AES-256-GCM
 * with a fresh 96-bit IV per value. One format, `v1.<iv>.<tag>.<ciphertext>` (each part base64url). `open` also
 * reads the agent's first form, `v1.<base64 of iv‖tag‖ciphertext>`, so values stored before the two wrappers became
 * this one still open. The key comes from the caller (derived or configured); it is never stored here.
 */
export class SealedBox {
  /** A KeyObject made once: handing `createDecipheriv` raw bytes makes it prepare a key on every call. */
  private readonly key: KeyObject;

  constructor(
    key: Uint8Array,
    /** The error for a value that is not sealed at all (each service words it for its own data). */
    private readonly notSealedMessage = 'not a sealed value',
  ) {
    if (key.length !== KEY_BYTES) throw new Error(`a sealing key must be ${KEY_BYTES} bytes`);
    this.key = createSecretKey(Buffer.from(key));
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, ...[iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url'))].join('.');
  }

  /** The value sealed by `seal` (or the agent's first form); throws when sealed under another key or altered. */
  open(sealed: string): string {
    const parts = this.partsOf(sealed);
    const decipher = createDecipheriv('aes-256-gcm', this.key, parts.iv);
    decipher.setAuthTag(parts.tag);
    return Buffer.concat([decipher.update(parts.body), decipher.final()]).toString('utf8');
  }

  private partsOf(sealed: string): { iv: Buffer; tag: Buffer; body: Buffer } {
    const [version, ...rest] = sealed.split('.');
    if (version !== VERSION) throw new Error(this.notSealedMessage);
    if (rest.length === 3) {
      const [iv, tag, body] = rest.map((part) => Buffer.from(part, 'base64url')) as [Buffer, Buffer, Buffer];
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error(this.notSealedMessage);
      return { iv, tag, body };
    }
    if (rest.length === 1 && rest[0]) {
      // The agent's first form: one standard-base64 payload.
      const bytes = Buffer.from(rest[0], 'base64');
      if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error(this.notSealedMessage);
      return {
        iv: bytes.subarray(0, IV_BYTES),
        tag: bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES),
        body: bytes.subarray(IV_BYTES + TAG_BYTES),
      };
    }
    throw new Error(this.notSealedMessage);
  }
}
