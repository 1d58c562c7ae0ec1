/**
 * One settled payment never yields two live keys: a buyer collecting its key again 20 times at once (the identical
 * payment and email, over HTTP) on every database driver reachable. Exactly one of the keys handed out works
 * afterwards, and every other answer is a key already replaced or a 409 that says to send the payment again.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { encodeX402Header } from '@rp/ledger';
import { DocumentStore, testDatabases } from '@rp/persistence';
import request from 'supertest';
import { API_KEYS, type KeyRecord } from '../keys/key.repository';
import { KeysService } from '../keys/keys.service';
import { type PaymentSandbox, startPaymentSandbox } from '../test/payment-sandbox.int-support';

const RETRIES = 20;
const { databases, skipped } = testDatabases('collect_again');
process.stdout.write(
  `collect-again drivers: ${databases.map((d) => d.name).join(', ')}${skipped.map((s) => ` (${s})`).join('')}\n`,
);

describe('collecting one payment again, many times at once', () => {
  let world: PaymentSandbox;

  beforeAll(async () => {
    world = await startPaymentSandbox();
  }, 60_000);
  afterAll(async () => {
    await world?.close(); // closes the apps, then the databases can go
    for (const database of databases) await database.drop();
  });

  describe.each(databases)('on $name', ({ url }) => {
    let app: NestFastifyApplication;

    beforeAll(async () => {
      app = await world.startApp({ DATABASE_URL: url });
    }, 60_000);

    it(`leaves exactly one working key after ${RETRIES} concurrent retries of a settled payment`, async () => {
      const wallet = world.wallet();
      const email = `collect-${wallet.address.slice(1, 9).toLowerCase()}@example.com`;
      const claim = await world.claim(app, wallet, { email, projectName: null });
      const header = encodeX402Header(claim.payload);
      const subscribe = () =>
        request(app.getHttpServer()).post('/api/v1/keys/subscribe').set('X-PAYMENT-SIGNATURE', header).send({ email });

      const first = await subscribe();
      expect(first.status).toBe(200);
      const retries = await Promise.all(Array.from({ length: RETRIES }, subscribe));

      // Every answer hands out a key, or says the key is being collected by another request (send it again).
      for (const answer of retries) {
        if (answer.status === 200) continue;
        expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 409, code: 'PAYMENT_IN_PROGRESS' });
        expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      const handedOut = [first, ...retries].filter((a) => a.status === 200).map((a) => a.body.apiKey as string);
      expect(handedOut.length).toBeGreaterThanOrEqual(2);

      const keys = app.get(KeysService);
      const states = await Promise.all(handedOut.map((apiKey) => keys.introspect(apiKey)));
      expect(states.filter((state) => state.active)).toHaveLength(1);
      expect(states.filter((state) => !state.active)).toEqual(
        Array.from({ length: handedOut.length - 1 }, () => ({ active: false, reason: 'revoked' })),
      );

      // The database agrees: one key of the buyer's is not revoked.
      const stored = await (
        await app.get(DocumentStore).collection<KeyRecord>(API_KEYS)
      ).find({ email, revokedAt: null });
      expect(stored).toHaveLength(1);
      expect(world.usdc(wallet.address)).toBe(0n);
    }, 120_000);
  });
});
