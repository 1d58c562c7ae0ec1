/**
 * The server-assisted flow and the subscription service in-process against the sandbox ledger: prepare's window,
 * complete's local checks, a purchase turned into a key, a lost answer collected again (the key before revoked),
 * and the status of an email whose payment is still settling.
 */
import { createHash } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PreparedPayment } from '@rp/contracts';
import type { LedgerWallet } from '@rp/ledger';
import { KeysService } from '../keys/keys.service';
import { PaymentContext } from '../payment/payment-context';
import { MAX_TIMEOUT_SECONDS } from '../payment/payment-settings';
import { PaymentRepository } from '../payment/payment.repository';
import { PRICE, type PaymentSandbox, startPaymentSandbox } from '../test/payment-sandbox.int-support';
import { AssistedPaymentService, type SignedPreparation } from './assisted-payment.service';
import { type PurchaseOutcome, SubscriptionsService } from './subscriptions.service';

describe('the assisted flow and the subscription service', () => {
  let world: PaymentSandbox;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    world = await startPaymentSandbox();
    app = await world.startApp();
  }, 60_000);
  afterAll(() => world?.close());
  afterEach(() => world.sandbox.faults.clear());

  const sign = (wallet: LedgerWallet, preimage: string) =>
    wallet.signHash(createHash('sha256').update(Buffer.from(preimage, 'base64')).digest()).toString('base64');

  async function prepared(wallet: LedgerWallet): Promise<PreparedPayment> {
    const answer = await app.get(AssistedPaymentService).prepare(wallet.address);
    if ('kind' in answer) throw new Error(`prepare refused: ${answer.detail}`);
    return answer;
  }

  function completion(wallet: LedgerWallet, preparation: PreparedPayment, signer = wallet): SignedPreparation {
    return {
      walletAddress: wallet.address,
      txJson: preparation.txJson,
      preimageXdrs: preparation.preimageXdrs,
      signedAuthEntries: preparation.preimageXdrs.map((preimage) => sign(signer, preimage)),
      maxLedger: preparation.maxLedger,
    };
  }

  function granted(outcome: PurchaseOutcome) {
    if (outcome.kind !== 'granted') throw new Error(`not granted: ${JSON.stringify(outcome)}`);
    return outcome;
  }

  it('prepares for the window every party computes, and completes into a key', async () => {
    const wallet = world.wallet();
    const window = await app.get(PaymentContext).current().timing.window(MAX_TIMEOUT_SECONDS);
    const preparation = await prepared(wallet);
    expect(preparation.maxLedger).toBeGreaterThanOrEqual(window.expirationLedger);
    expect(preparation.maxLedger).toBeLessThanOrEqual(window.maxLedger);

    const signed = app.get(AssistedPaymentService).signedPayload(completion(wallet, preparation));
    if ('kind' in signed) throw new Error(`refused: ${JSON.stringify(signed)}`);
    const { grant } = granted(
      await app.get(SubscriptionsService).purchase({
        payload: signed.payload,
        buyer: { email: 'assisted@example.com', projectName: 'Assisted' },
        flow: 'assisted',
        digest: signed.digest,
      }),
    );
    expect(grant.apiKey).toMatch(/^rp_test_/);
    expect(world.usdc(wallet.address)).toBe(0n);
  });

  it('refuses a signature by another key, naming it, and a preimage that is not the prepared one, without an RPC call', async () => {
    const wallet = world.wallet();
    const preparation = await prepared(wallet);
    const trap = world.sandbox.faults.add({ kind: 'rpc-error', method: '*', count: 1000 });
    const service = app.get(AssistedPaymentService);
    expect(service.signedPayload(completion(wallet, preparation, world.wallet(0n)))).toEqual({
      kind: 'rule',
      rule: 'bad_signature',
      field: 'signedAuthEntries[0]',
    });
    const other = { ...completion(wallet, preparation), preimageXdrs: [Buffer.from('not it').toString('base64')] };
    expect(service.signedPayload(other)).toMatchObject({ kind: 'malformed', field: 'preimageXdrs[0]' });
    expect(trap.remaining).toBe(1000);
  });

  it('tells a wallet that cannot pay at prepare', async () => {
    const empty = world.wallet(0n);
    expect(await app.get(AssistedPaymentService).prepare(empty.address)).toMatchObject({ kind: 'wallet_cannot_pay' });
  });

  it('gives a buyer who lost the answer a fresh key and revokes the one before; the status shows the payment', async () => {
    const wallet = world.wallet();
    const claim = await world.claim(app, wallet, { email: 'lost@example.com', projectName: null });
    const subscriptions = app.get(SubscriptionsService);
    const first = granted(await subscriptions.purchase(claim));
    const second = granted(await subscriptions.purchase(claim));
    expect(second.grant.apiKey).not.toBe(first.grant.apiKey);
    expect(second.receipt.transaction).toBe(first.receipt.transaction);

    const keys = app.get(KeysService);
    expect(await keys.introspect(first.grant.apiKey)).toEqual({ active: false, reason: 'revoked' });
    expect(await keys.introspect(second.grant.apiKey)).toMatchObject({ active: true });
    expect(world.usdc(wallet.address)).toBe(0n);

    const status = await subscriptions.status('lost@example.com');
    expect(status).toMatchObject({ active: true, lastPayment: { txHash: first.receipt.transaction } });
    expect(status.settling).toBeUndefined();
  });

  it('shows a payment still settling in the status instead of answering that the email never paid', async () => {
    const payments = app.get(PaymentRepository);
    const reserved = await payments.reserve({
      payer: world.wallet(0n).address,
      nonce: '42',
      digest: 'e'.repeat(64),
      authExpiresLedger: 1_000_000,
      email: 'settling@example.com',
      projectName: null,
      flow: 'direct',
      network: 'ledger:testnet',
      asset: world.requirements(app).asset,
      amount: PRICE.toString(),
      amountUsd: '0.2026',
    });
    await payments.markSettling(reserved.id, {
      txHash: 'f'.repeat(64),
      lane: reserved.payer,
      validUntil: new Date(Date.now() + 60_000),
      maxFee: 200_000n,
    });
    const status = await app.get(SubscriptionsService).status('settling@example.com');
    expect(status).toMatchObject({
      active: false,
      lastPayment: { txHash: 'f'.repeat(64), amountUsd: '0.2026' },
      settling: { txHash: 'f'.repeat(64) },
    });
  });
});
