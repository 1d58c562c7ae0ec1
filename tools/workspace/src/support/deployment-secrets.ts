import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';

const root = resolve(__dirname, '../../../..');

/** A plausible value for every secret key the deployment guide documents. */
export const SAMPLE_SECRET_VALUES: Record<string, string> = {
  INTERNAL_TOKEN: 'internal-token-0123456789abcdef',
  REDIS_URL: 'redis://:password@redis:6379',
  DATABASE_URL: 'postgres://app:password@postgres:5432/risk?schema=app',
  POSTGRES_PASSWORD: 'postgres-password',
  X402_PAYMENT_ADDRESS_LEDGER: Keypair.random().publicKey(),
  X402_FACILITATOR_LEDGER_SECRET_KEY: Keypair.random().secret(),
  RMS_ADMIN_API_KEY: 'admin-key-0123456789abcdef',
  RMS_WEBHOOK_SECRET: 'webhook-secret-0123456789',
  NOTIFICATIONS_ENCRYPTION_KEY: '0123456789abcdef'.repeat(4),
  MESSENGER_BOT_TOKEN: '123456:bot-token',
  SMTP_HOST: 'smtp.example.com',
  SMTP_USER: 'alerts',
  SMTP_PASSWORD: 'smtp-password',
  EMAIL_FROM: 'alerts@example.com',
  LEDGER_MNEMONIC: 'illness spike retreat truth genius clock brain pass fit cave bargain toe',
};

/** `| \`secret\` | \`KEY\` | ...` rows of docs/deployment.md. */
export function documentedSecrets(): Map<string, Record<string, string>> {
  const secrets = new Map<string, Record<string, string>>();
  for (const line of readFileSync(resolve(root, 'docs/deployment.md'), 'utf8').split('\n')) {
    const row = /^\| `([a-z-]+)` \| `([A-Z0-9_]+)` \|/.exec(line);
    if (!row) continue;
    const value = SAMPLE_SECRET_VALUES[row[2]];
    if (value === undefined) throw new Error(`no sample value for documented secret key ${row[2]}`);
    secrets.set(row[1], { ...secrets.get(row[1]), [row[2]]: value });
  }
  return secrets;
}
