/**
 * Settlements under a storm on the sandbox ledger (issue 18 §2): 3x the ledger's Soroban capacity at 10x the
 * minimum fee. A settlement offered at the minimum waits (the storm outbids it); the reconciler re-prices it (the
 * same signed transaction in a new sponsor fee bump, within the cap) and that one lands: the payment settles once.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { keypairFromSecret, networkPassphrase, settlementInclusionBid } from '@rp/ledger';
import { PRICE, RECEIVER, type PaymentSandbox, startPaymentSandbox } from '../test/payment-sandbox.int-support';
import { PaymentRepository } from './payment.repository';
import { PaymentService } from './payment.service';
import { SettlementReconciler } from './settlement-reconciler';

const TESTNET = networkPassphrase('ledger:testnet');
const LIMIT = 5;
const STORM = { transactionsPerLedger: 15, inclusionFee: 1000, ledgers: 100_000 };

describe('settlement fees under a storm', () => {
  let world: PaymentSandbox;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    world = await startPaymentSandbox();
    // The reconciler runs when the test says (tick), not on its own timer.
    app = await world.startApp({ SETTLEMENT_TIMEOUT_MS: '3000', SETTLEMENT_RECONCILE_INTERVAL_MS: '3600000' });
    await control('POST', '/control/ledger/limits', { maxSorobanTransactions: LIMIT });
    await control('POST', '/control/congestion', STORM);
    // Wait (on the ledger, a safety bound of rounds) until the storm's charged fees are what getFeeStats reports.
    for (let round = 0; ; round += 1) {
      if (BigInt((await world.ledger.getFeeStats()).sorobanInclusionFee.p95) >= BigInt(STORM.inclusionFee)) break;
      if (round > 600) throw new Error('the storm did not raise p95 of the inclusion fees');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 120_000);

  afterAll(async () => {
    if (!world) return;
    world.sandbox.faults.clear();
    await control('DELETE', '/control/congestion').catch(() => undefined);
    await world.close();
  });

  async function control(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${world.sandbox.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.json();
  }

  const sponsor = () => keypairFromSecret(world.sandbox.scenario?.sponsor.secret ?? '');

  it('a minimum-fee settlement waits; the reconciler re-prices it within the cap and the payment settles once', async () => {
    // getFeeStats failing before any answer: the settlement is offered at the minimum, as before fees were priced.
    world.sandbox.faults.add({ kind: 'rpc-error', method: 'getFeeStats', count: 1000 });
    const payer = world.wallet();
    const claim = await world.claim(app, payer, { email: 'storm@example.com', projectName: null });
    const before = { sponsor: world.xlm(sponsor().publicKey()), receiver: world.usdc(RECEIVER.address) };

    const outcome = await app.get(PaymentService).accept(claim);
    // Three seconds of ledgers (every 250 ms) and the minimum bid is still in none of them.
    expect(outcome.kind).toBe('settling');
    const payments = app.get(PaymentRepository);
    const waiting = await payments.lastSettling('storm@example.com');
    if (!waiting?.txHash) throw new Error('no settling record');
    expect((await world.ledger.getTransaction(waiting.txHash)).status).toBe('NOT_FOUND');
    expect(settlementInclusionBid(waiting.envelope ?? '', TESTNET)).toBe(100n);

    world.sandbox.faults.clear();
    const reconciler = app.get(SettlementReconciler);
    let settled = await payments.find(waiting.id);
    for (let round = 0; settled?.status === 'settling'; round += 1) {
      if (round > 120) throw new Error('the settlement was neither re-priced nor settled');
      await reconciler.tick();
      await new Promise((resolve) => setTimeout(resolve, 250));
      settled = await payments.find(waiting.id);
    }
    expect(settled).toMatchObject({ status: 'settled', earlierTxHashes: [waiting.txHash] });
    expect(settled?.txHash).not.toBe(waiting.txHash);
    // The ask (p95 + 25%) is above 10x the minimum bid, which the queue needs to replace the waiting one.
    expect(settlementInclusionBid(settled?.envelope ?? '', TESTNET)).toBe(1250n);
    // The re-priced one landed, the minimum one never did; the sponsor paid one fee, within the cap.
    expect((await world.ledger.getTransaction(settled?.txHash ?? '')).status).toBe('SUCCESS');
    expect((await world.ledger.getTransaction(waiting.txHash)).status).toBe('NOT_FOUND');
    const fee = BigInt(settled?.feeCharged ?? '-1');
    expect(fee).toBeGreaterThan(BigInt(waiting.maxFee ?? '0'));
    expect(BigInt(settled?.maxFee ?? '0')).toBeLessThanOrEqual(200_000n);
    expect(before.sponsor - world.xlm(sponsor().publicKey())).toBe(fee);
    expect(world.usdc(RECEIVER.address) - before.receiver).toBe(PRICE);
    expect(world.usdc(payer.address)).toBe(0n);
  }, 60_000);

  it('prices a settlement from getFeeStats when it answers: it lands through the storm without re-pricing', async () => {
    const payer = world.wallet();
    const outcome = await app
      .get(PaymentService)
      .accept(await world.claim(app, payer, { email: 'priced@example.com', projectName: null }));
    expect(outcome.kind).toBe('paid');
    if (outcome.kind !== 'paid') return;
    expect(outcome.record.earlierTxHashes).toBeUndefined();
    // The lane's transaction and the sponsor's fee bump both bid the ask: p95 (the storm's 1000) + 25%.
    const envelope = outcome.record.envelope ?? '';
    expect(settlementInclusionBid(envelope, TESTNET)).toBe(1250n);
  });
});
