/**
 * Keys stored before accounts existed, on every database driver reachable: seeded in the shape they had, then the
 * subscription service started on them. Each key takes the account its payment proves (never its email), a payment
 * left with several live keys keeps one, the other services' lookup of owners answers from them, and a second start
 * changes nothing.
 */
import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LedgerWallet } from '@rp/ledger';
import { type StoredDocument, openDocumentStore, parseDatabaseUrl, testDatabases } from '@rp/persistence';
import { createApp, initApp, loadConfig, signInternalRequest } from '@rp/platform';
import request from 'supertest';
import { SubscriptionConfig } from '../config/subscription.config';
import { PAYMENTS } from '../payment/payment.repository';
import { subscriptionApp } from '../subscription.app';
import { generateApiKey, hashApiKey } from './api-key';
import { API_KEYS } from './key.repository';
import { KeysService } from './keys.service';

const TOKEN = 'internal-token-for-key-migration-tests';
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const PAYER_A = LedgerWallet.fromMnemonic(MNEMONIC, { index: 41 }).address;
const PAYER_B = LedgerWallet.fromMnemonic(MNEMONIC, { index: 42 }).address;
const DAY = 86_400_000;

const { databases, skipped } = testDatabases('key_migration', { sqlite: 'file' });
process.stdout.write(
  `key migration drivers: ${databases.map((d) => d.name).join(', ')}${skipped.map((s) => ` (${s})`).join('')}\n`,
);

/** A key as stored before accounts: no `account`, no `emailKey`, no `livePaymentId`. */
function legacyKey(fields: { email: string; paymentId: string | null; createdAt: Date; revokedAt?: Date }) {
  const apiKey = generateApiKey('ledger:testnet');
  const record = {
    id: randomUUID(),
    hash: hashApiKey(apiKey),
    prefix: apiKey.slice(0, 12),
    tier: fields.paymentId ? 'standard' : 'partner',
    rateLimit: 60,
    burst: 120,
    email: fields.email,
    projectName: null,
    paymentId: fields.paymentId,
    createdAt: fields.createdAt,
    expiresAt: new Date(fields.createdAt.getTime() + 30 * DAY),
    ...(fields.revokedAt && { revokedAt: fields.revokedAt }),
  };
  return { apiKey, record };
}

function settledPayment(payer: string, email: string, nonce: string, keyId?: string) {
  return {
    id: randomUUID(),
    payer,
    nonce,
    status: 'settled',
    digest: 'd'.repeat(64),
    authExpiresLedger: 1000,
    email,
    projectName: null,
    flow: 'direct',
    network: 'ledger:testnet',
    asset: 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA',
    amount: '2026000',
    amountUsd: '0.2026',
    createdAt: new Date(Date.now() - DAY),
    txHash: nonce.padStart(64, '0'),
    paidAt: new Date(Date.now() - DAY),
    ...(keyId && { keyId }),
  };
}

describe.each(databases)('keys stored before accounts, on $name', ({ url, drop }) => {
  const now = Date.now();
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000);
  // Payment 1 (wallet A) was collected three times on a driver that let the collections interleave: three live
  // keys; the payment names the middle one as its latest. Payment 2 (wallet B) has a live key and a revoked one.
  const a1 = legacyKey({ email: 'shared@example.com', paymentId: 'x', createdAt: at(30) });
  const a2 = legacyKey({ email: 'shared@example.com', paymentId: 'x', createdAt: at(20) });
  const a3 = legacyKey({ email: 'shared@example.com', paymentId: 'x', createdAt: at(10) });
  const payment1 = settledPayment(PAYER_A, 'shared@example.com', '1', a2.record.id);
  const b1 = legacyKey({ email: 'Shared@Example.com', paymentId: 'x', createdAt: at(40) });
  const b0 = legacyKey({ email: 'Shared@Example.com', paymentId: 'x', createdAt: at(50), revokedAt: at(45) });
  const payment2 = settledPayment(PAYER_B, 'Shared@Example.com', '2', b1.record.id);
  const partner = legacyKey({ email: 'ops@partner.example', paymentId: null, createdAt: at(60) });
  const orphan = legacyKey({ email: 'orphan@example.com', paymentId: randomUUID(), createdAt: at(70) });
  for (const key of [a1, a2, a3]) key.record.paymentId = payment1.id;
  for (const key of [b0, b1]) key.record.paymentId = payment2.id;
  const legacy = [a1, a2, a3, b0, b1, partner, orphan];

  let app: NestFastifyApplication | undefined;
  const start = async () => {
    const config = loadConfig(SubscriptionConfig, {
      DATABASE_URL: url,
      INTERNAL_TOKEN: TOKEN,
      X402_LEDGER_NETWORK: 'ledger:testnet',
      LOG_LEVEL: 'silent',
    });
    app = await initApp(await createApp(subscriptionApp, config));
    return app;
  };
  const stop = async () => {
    await app?.close();
    app = undefined;
  };
  const storedKeys = async () => {
    const store = await openDocumentStore(parseDatabaseUrl(url, 'subscription'));
    try {
      const keys = await (await store.collection<StoredDocument & Record<string, unknown>>(API_KEYS)).find({});
      return keys.sort((x, y) => x.id.localeCompare(y.id));
    } finally {
      await store.close();
    }
  };

  beforeAll(async () => {
    const store = await openDocumentStore(parseDatabaseUrl(url, 'subscription'));
    try {
      const payments = await store.collection(PAYMENTS);
      for (const payment of [payment1, payment2]) await payments.insert(payment);
      // The collection as it was: without the index on the payment's live key, which the service adds at start.
      const keys = await store.collection({
        name: API_KEYS.name,
        unique: [{ name: 'api_keys_hash', fields: ['hash'] }],
      });
      for (const { record } of legacy) await keys.insert(record);
    } finally {
      await store.close();
    }
  }, 60_000);
  afterAll(async () => {
    await stop();
    await drop();
  });

  it('gives each key the account its payment proves and leaves each payment one live key', async () => {
    const keys = (await start()).get(KeysService);
    const state = async (key: { apiKey: string }) => keys.introspect(key.apiKey);

    // The payment's named key stays, the others of that payment are revoked; accounts come from the payers.
    expect(await state(a2)).toMatchObject({ active: true, account: `wallet:${PAYER_A}`, email: 'shared@example.com' });
    expect(await state(a1)).toEqual({ active: false, reason: 'revoked' });
    expect(await state(a3)).toEqual({ active: false, reason: 'revoked' });
    // Same email, another wallet: another account.
    expect(await state(b1)).toMatchObject({ active: true, account: `wallet:${PAYER_B}` });
    expect(await state(b0)).toEqual({ active: false, reason: 'revoked' });
    // Nobody named the partner key's account: it is its own. A bought key without its payment: the key alone.
    expect(await state(partner)).toMatchObject({ active: true, account: `partner:key-${partner.record.id}` });
    expect(await state(orphan)).toMatchObject({ active: true, account: `key:${orphan.record.id}` });

    const stored = new Map((await storedKeys()).map((key) => [key.id, key]));
    expect(stored.get(a2.record.id)).toMatchObject({ livePaymentId: payment1.id, emailKey: 'shared@example.com' });
    expect(stored.get(b1.record.id)).toMatchObject({ livePaymentId: payment2.id, emailKey: 'shared@example.com' });
    expect(stored.get(orphan.record.id)).toMatchObject({ livePaymentId: orphan.record.paymentId });
    for (const key of [a1, a3, b0, partner]) expect(stored.get(key.record.id)).not.toHaveProperty('livePaymentId');
    expect(stored.get(b0.record.id)).toMatchObject({ account: `wallet:${PAYER_B}`, revokedAt: at(45) });
  });

  it("answers the other services' lookup of owners from the keys (signed calls only)", async () => {
    if (!app) throw new Error('the service is not running');
    const server = app.getHttpServer();
    const path = '/internal/accounts/owners';
    const unknown = randomUUID();
    const body = {
      keyIds: [a1.record.id, partner.record.id, unknown],
      emails: ['shared@example.com', 'OPS@partner.example', 'nobody@example.com'],
    };
    const text = JSON.stringify(body);
    const requestId = randomUUID();
    const answer = await request(server)
      .post(path)
      .set({
        ...signInternalRequest({ token: TOKEN, method: 'POST', path, requestId, body: text }),
        'x-request-id': requestId,
        'content-type': 'application/json',
      })
      .send(text);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      keys: [
        { keyId: a1.record.id, account: `wallet:${PAYER_A}` },
        { keyId: partner.record.id, account: `partner:key-${partner.record.id}` },
        { keyId: unknown, account: null },
      ],
      emails: [
        { email: 'shared@example.com', accounts: [`wallet:${PAYER_A}`, `wallet:${PAYER_B}`] },
        { email: 'ops@partner.example', accounts: [`partner:key-${partner.record.id}`] },
        { email: 'nobody@example.com', accounts: [] },
      ],
    });
    const unsigned = await request(server).post(path).set('content-type', 'application/json').send(text);
    expect(unsigned.status).toBe(403);
  });

  it('changes nothing when it starts again', async () => {
    const before = await storedKeys();
    await stop();
    await start();
    expect(await storedKeys()).toEqual(before);
  });
});
