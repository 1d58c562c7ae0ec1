import { SealedBox } from '@rp/platform';
import { createHash } from 'node:crypto';

/**
 * Bot tokens and webhook URLs at rest: `SealedBox` (AES-256-GCM). Without a key (development and tests only;
 * production requires `NOTIFICATIONS_ENCRYPTION_KEY`) a fixed development key is used, so stored values are still
 * never in clear.
 */
export class SecretBox extends SealedBox {
  constructor(key: string | undefined) {
    super(key ? decodeKey(key) : createHash('sha256').update('rp-notifications-development-key').digest());
  }
}

function decodeKey(key: string): Buffer {
  const bytes = /^[0-9a-fA-F]{64}$/.test(key) ? Buffer.from(key, 'hex') : Buffer.from(key, 'base64');
  if (bytes.length !== 32) throw new Error('NOTIFICATIONS_ENCRYPTION_KEY must be 32 bytes');
  return bytes;
}
