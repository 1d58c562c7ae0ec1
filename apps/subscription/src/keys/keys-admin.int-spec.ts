/**
 * The key side of the subscription service in-process, on embedded SQLite and the test Redis: partner keys
 * behind the admin key, introspection for the gateway (behind the internal token), revocation and expiry.
 */
import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type CallerIdentity } from '@rp/contracts';
import { createApp, initApp, loadConfig, signInternalRequest } from '@rp/platform';
import request from 'supertest';
import { SubscriptionConfig } from '../config/subscription.config';
import { subscriptionApp } from '../subscription.app';
import { PaymentRepository } from '../payment/payment.repository';
import { KeysService } from './keys.service';

const ADMIN = 'admin-key-for-integration-tests';
const TOKEN = 'internal-token-for-integration-tests';

/** `body`: the object supertest will send, as the JSON text whose hash the signature covers. */
function signed(method: string, path: string, identity?: CallerIdentity, body?: object): Record<string, string> {
  const requestId = randomUUID();
  const text = body === undefined ? undefined : JSON.stringify(body);
  return {
    ...signInternalRequest({ token: TOKEN, method, path, requestId, identity, body: text }),
    'x-request-id': requestId,
  };
}

describe('partner keys, introspection and revocation', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    const config = loadConfig(SubscriptionConfig, {
      DATABASE_URL: 'sqlite://memory',
      REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
      RMS_ADMIN_API_KEY: ADMIN,
      INTERNAL_TOKEN: TOKEN,
      X402_LEDGER_NETWORK: 'ledger:testnet',
      LOG_LEVEL: 'silent',
    });
    app = await createApp(subscriptionApp, config);
    await initApp(app);
  }, 60_000);
  afterAll(() => app?.close());

  const server = () => app.getHttpServer();
  const introspect = (apiKey: unknown) =>
    request(server())
      .post('/internal/keys/introspect')
      .set(signed('POST', '/internal/keys/introspect', undefined, { apiKey }))
      .send({ apiKey });
  const issuePartner = (body: object, adminKey: string | null = ADMIN) => {
    const call = request(server())
      .post('/api/v1/keys/partners')
      .set(signed('POST', '/api/v1/keys/partners', undefined, body));
    return (adminKey === null ? call : call.set('x-admin-key', adminKey)).send(body);
  };

  it('issues a partner key with custom rate, burst and duration that introspects as active', async () => {
    const issued = await issuePartner({ email: 'partner@example.com', rateLimit: 600, burst: 1000, durationDays: 90 });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ tier: 'partner', rateLimit: 600, burst: 1000, durationDays: 90 });
    expect(issued.body.apiKey).toMatch(/^rp_test_[0-9A-Za-z]{32}$/);
    const answer = await introspect(issued.body.apiKey);
    expect(answer.body).toEqual({
      active: true,
      keyId: issued.body.keyId,
      tier: 'partner',
      rateLimit: 600,
      burst: 1000,
      expiresAt: issued.body.expiresAt,
      email: 'partner@example.com',
      account: `partner:key-${issued.body.keyId}`,
    });
    expect(issued.body.account).toBe(`partner:key-${issued.body.keyId}`);
  });

  it('gives partner keys issued with one name one account, and an unnamed key an account of its own', async () => {
    const terms = { rateLimit: 60, burst: 60, durationDays: 1 };
    const first = await issuePartner({ email: 'ops@acme.example', partner: 'acme', ...terms });
    const second = await issuePartner({ email: 'other@acme.example', partner: 'acme', ...terms });
    const unnamed = await issuePartner({ email: 'ops@acme.example', ...terms });
    expect([first.status, second.status, unnamed.status]).toEqual([201, 201, 201]);
    expect((await introspect(first.body.apiKey)).body.account).toBe('partner:acme');
    expect((await introspect(second.body.apiKey)).body.account).toBe('partner:acme');
    // The same email is no account: the unnamed key shares nothing with the named ones.
    expect((await introspect(unnamed.body.apiKey)).body.account).toBe(`partner:key-${unnamed.body.keyId}`);
  });

  it.each(['ACME', 'acme corp', '-acme', 'a'.repeat(65), 'acme:other', 'wallet:x'])(
    'refuses the partner name %j, naming the field',
    async (partner) => {
      const answer = await issuePartner({ email: 'p@example.com', rateLimit: 1, burst: 1, durationDays: 1, partner });
      expect(answer.status).toBe(400);
      expect(answer.body.details).toEqual([{ field: 'partner', message: expect.stringContaining('lower-case') }]);
    },
  );

  it.each([
    ['no admin key', null, 403, 'INVALID_ADMIN_KEY'],
    ['a wrong admin key', 'not-the-admin-key', 403, 'INVALID_ADMIN_KEY'],
  ])('refuses %s', async (_name, adminKey, status, code) => {
    const answer = await issuePartner({ email: 'p@example.com', rateLimit: 1, burst: 1, durationDays: 1 }, adminKey);
    expect({ status: answer.status, code: answer.body.code }).toEqual({ status, code });
  });

  it('names the field of a bad partner request', async () => {
    const answer = await issuePartner({ email: 'p@example.com', rateLimit: 0, burst: 10, durationDays: 1 });
    expect(answer.status).toBe(400);
    expect(answer.body.details).toEqual([{ field: 'rateLimit', message: expect.stringContaining('1') }]);
  });

  it('answers unknown, revoked and expired keys as inactive, with the reason', async () => {
    expect((await introspect('rp_test_' + 'x'.repeat(32))).body).toEqual({ active: false, reason: 'unknown' });
    expect((await introspect('not even a key')).body).toEqual({ active: false, reason: 'unknown' });

    const issued = await issuePartner({ email: 'revoked@example.com', rateLimit: 60, burst: 60, durationDays: 1 });
    const revoke = await request(server())
      .delete(`/api/v1/keys/admin/keys/${issued.body.keyId}`)
      .set(signed('DELETE', `/api/v1/keys/admin/keys/${issued.body.keyId}`))
      .set('x-admin-key', ADMIN);
    expect(revoke.status).toBe(200);
    expect((await introspect(issued.body.apiKey)).body).toEqual({ active: false, reason: 'revoked' });

    const { apiKey, record } = await app.get(KeysService).issue({
      network: 'ledger:testnet',
      tier: 'standard',
      rateLimit: 60,
      burst: 120,
      durationDays: 30,
      from: new Date(Date.now() - 31 * 86_400_000),
      email: 'expired@example.com',
      projectName: null,
      owner: { kind: 'partner', name: null },
    });
    expect((await introspect(apiKey)).body).toEqual({
      active: false,
      reason: 'expired',
      expiresAt: record.expiresAt.toISOString(),
    });
  });

  it('reports a paid subscription whose key has expired as inactive', async () => {
    const payments = app.get(PaymentRepository);
    const paidAt = new Date(Date.now() - 31 * 86_400_000);
    const payment = await payments.reserve({
      payer: 'GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX',
      nonce: '7',
      email: 'lapsed@example.com',
      projectName: null,
      flow: 'direct',
      network: 'ledger:testnet',
      asset: 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA',
      amount: '2026000',
      amountUsd: '0.2026',
      digest: 'b'.repeat(64),
      authExpiresLedger: 1_000_000,
    });
    await payments.markSettling(payment.id, {
      txHash: 'a'.repeat(64),
      lane: 'GB3JDWCQJCWMJ3IILWIGDTQJJC5567PGVEVXSCVPEQOTDN64VJBDQBYX',
      validUntil: paidAt,
      maxFee: 200_000n,
    });
    await payments.markSettled(payment.id, { paidAt, ledger: 12 });
    const { record } = await app.get(KeysService).issue({
      network: 'ledger:testnet',
      tier: 'standard',
      rateLimit: 60,
      burst: 120,
      durationDays: 30,
      from: paidAt,
      email: 'lapsed@example.com',
      projectName: null,
      owner: { kind: 'payment', paymentId: payment.id, payer: payment.payer },
    });
    const path = '/api/v1/keys/subscribe/status?email=lapsed%40example.com';
    const status = await request(server()).get(path).set(signed('GET', path));
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      active: false,
      tier: 'standard',
      rateLimit: 60,
      expiresAt: record.expiresAt.toISOString(),
      lastPayment: {
        network: 'ledger:testnet',
        amountUsd: '0.2026',
        txHash: 'a'.repeat(64),
        paidAt: paidAt.toISOString(),
      },
    });
  });

  it('revoking an unknown key is a 404', async () => {
    const id = randomUUID();
    const answer = await request(server())
      .delete(`/api/v1/keys/admin/keys/${id}`)
      .set(signed('DELETE', `/api/v1/keys/admin/keys/${id}`))
      .set('x-admin-key', ADMIN);
    expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 404, code: 'KEY_NOT_FOUND' });
  });

  it('refuses calls the gateway did not sign, and /keys/me without an identity', async () => {
    const unsigned = await request(server()).post('/internal/keys/introspect').send({ apiKey: 'x' });
    expect({ status: unsigned.status, code: unsigned.body.code }).toEqual({
      status: 403,
      code: 'INTERNAL_AUTH_REQUIRED',
    });
    const me = await request(server()).get('/api/v1/keys/me').set(signed('GET', '/api/v1/keys/me'));
    expect({ status: me.status, code: me.body.code }).toEqual({ status: 401, code: 'API_KEY_REQUIRED' });
  });

  it('answers 503 PAYMENT_NOT_CONFIGURED and 404 SUBSCRIPTION_NOT_FOUND', async () => {
    const subscribe = await request(server())
      .post('/api/v1/keys/subscribe')
      .set(signed('POST', '/api/v1/keys/subscribe', undefined, { email: 'a@example.com' }))
      .send({ email: 'a@example.com' });
    expect({ status: subscribe.status, code: subscribe.body.code }).toEqual({
      status: 503,
      code: 'PAYMENT_NOT_CONFIGURED',
    });
    const status = await request(server())
      .get('/api/v1/keys/subscribe/status?email=nobody%40example.com')
      .set(signed('GET', '/api/v1/keys/subscribe/status?email=nobody%40example.com'));
    expect({ status: status.status, code: status.body.code }).toEqual({ status: 404, code: 'SUBSCRIPTION_NOT_FOUND' });
  });
});
