import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';

export const REDACTED = '[REDACTED]';

/** Header names that carry credentials. Lower case, as Node delivers them. */
export const SECRET_HEADERS = [
  'authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-admin-key',
  'x-webhook-secret',
  'x-internal-token',
  'x-payment',
  'x-payment-signature',
  'payment-signature',
] as const;

/**
 * Key names whose values are secrets wherever they appear in a logged object. Compared after lower-casing and
 * removing `-` and `_`, and also as a suffix (`messengerBotToken`, `smtpPassword`, `LEDGER_MNEMONIC`), so that
 * `tokenId` (a contract address) stays visible while `accessToken` does not.
 */
const SECRET_KEY_SUFFIXES = [
  'mnemonic',
  'seed',
  'password',
  'passwd',
  'secret',
  'secretkey',
  'privatekey',
  'apikey',
  'adminkey',
  'token',
  'webhook',
  'webhookurl',
  'authorization',
  'cookie',
  'setcookie',
  'xpayment',
  'paymentsignature',
];

export function isSecretKey(key: string): boolean {
  const normalised = key.toLowerCase().replace(/[-_]/g, '');
  return SECRET_KEY_SUFFIXES.some((suffix) => normalised.endsWith(suffix));
}

/**
 * A copy of `value` with every secret-named key replaced, at any depth. Cycles and depth are bounded. Live objects
 * (requests, responses, sockets, buffers, errors, dates) are left to their serializers untouched.
 */
export function redactSecrets(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (value instanceof EventEmitter || value instanceof Error || value instanceof Date || Buffer.isBuffer(value)) {
    return value;
  }
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1, seen));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = isSecretKey(key) ? REDACTED : redactSecrets(item, depth + 1, seen);
  }
  return copy;
}

/**
 * A log destination that removes known secret values (the app's own secret settings, registered at boot) from
 * every line before it is written, wherever they appear: in a message, an error text or a stack.
 */
export class SecretScrubber extends Writable {
  private readonly secrets: string[];

  constructor(
    secrets: readonly string[],
    private readonly destination: NodeJS.WritableStream = process.stdout,
  ) {
    super({ decodeStrings: false });
    // Short values would blank out ordinary words; settings of fewer than 6 characters are not real secrets.
    this.secrets = [...new Set(secrets.filter((secret) => secret.length >= 6))].sort((a, b) => b.length - a.length);
  }

  scrub(line: string): string {
    let scrubbed = line;
    for (const secret of this.secrets) {
      if (scrubbed.includes(secret)) scrubbed = scrubbed.split(secret).join(REDACTED);
      const escaped = JSON.stringify(secret).slice(1, -1);
      if (escaped !== secret && scrubbed.includes(escaped)) scrubbed = scrubbed.split(escaped).join(REDACTED);
    }
    return scrubbed;
  }

  override _write(chunk: string | Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.destination.write(this.scrub(chunk.toString()));
    callback();
  }
}
