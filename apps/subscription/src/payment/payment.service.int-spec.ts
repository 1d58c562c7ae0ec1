/**
 * The payment service in-process against the sandbox ledger: the order its rules run in, what each refusal
 * costs (nothing, or one capped fee), the lanes, and the reconciler. The HTTP answers are proven end to end in
 * tools/e2e; here the rules are proven next to the code.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { settlementLanes, keypairFromSecret } from '@rp/ledger';
import { Registry } from 'prom-client';
import { PRICE, RECEIVER, type PaymentSandbox, startPaymentSandbox } from '../test/payment-sandbox.int-support';
import { PaymentRepository } from './payment.repository';
import type { PaymentOutcome } from './payment-outcome';
import { PaymentService } from './payment.service';
import { SettlementLanes } from './settlement-lanes.service';
import { SettlementReconciler } from './settlement-reconciler';

describe('PaymentService', () => {
  let world: PaymentSandbox;
  let app: NestFastifyApplication;
  let emails = 0;
  const buyer = () => ({ email: `payment-${++emails}@example.com`, projectName: null });

  beforeAll(async () => {
    world = await startPaymentSandbox();
    app = await world.startApp();
  }, 60_000);
  afterAll(() => world?.close());
  afterEach(() => world.sandbox.faults.clear());

  const sponsor = () => keypairFromSecret(world.sandbox.scenario?.sponsor.secret ?? '');
  const sponsorXlm = () => world.xlm(sponsor().publicKey());

  /** Every RPC call from here on fails: a refusal reached with the trap untouched made none. */
  function rpcTrap() {
    return world.sandbox.faults.add({ kind: 'rpc-error', method: '*', count: 1000 });
  }

  function refusalOf(outcome: PaymentOutcome) {
    return outcome.kind === 'refused' ? outcome.refusal : outcome;
  }

  it('settles from a lane, with the sponsor paying one fee below the cap by fee bump', async () => {
    const payer = world.wallet();
    const claim = await world.claim(app, payer, buyer());
    const before = { sponsor: sponsorXlm(), receiver: world.usdc(RECEIVER.address) };

    const outcome = await app.get(PaymentService).accept(claim);
    expect(outcome.kind).toBe('paid');
    if (outcome.kind !== 'paid') return;
    const { record } = outcome;
    expect(record).toMatchObject({ status: 'settled', email: claim.buyer.email, payer: payer.address });
    const lanes = settlementLanes(sponsor(), 8).map((lane) => lane.publicKey());
    expect(lanes).toContain(record.lane);
    const fee = BigInt(record.feeCharged ?? '-1');
    expect(fee).toBeGreaterThan(0n);
    expect(fee).toBeLessThanOrEqual(200_000n);
    expect(before.sponsor - sponsorXlm()).toBe(fee);
    expect(world.usdc(RECEIVER.address) - before.receiver).toBe(PRICE);
    expect(world.usdc(payer.address)).toBe(0n);
  });

  it('answers the identical payment of the same buyer as a recovery and anyone else as a replay, simulating nothing', async () => {
    const payer = world.wallet();
    const claim = await world.claim(app, payer, buyer());
    expect((await app.get(PaymentService).accept(claim)).kind).toBe('paid');

    const trap = world.sandbox.faults.add({ kind: 'rpc-error', method: 'simulateTransaction', count: 1000 });
    const recovered = await app.get(PaymentService).accept(claim);
    expect(recovered).toMatchObject({ kind: 'paid', recovered: true });
    expect(refusalOf(await app.get(PaymentService).accept({ ...claim, buyer: buyer() }))).toEqual({
      kind: 'replayed',
    });
    expect(trap.remaining).toBe(1000);
    expect(world.usdc(payer.address)).toBe(0n);
  });

  it.each([
    ['a wrong amount', 'wrong_amount'],
    ['a wrong asset', 'wrong_asset'],
    ['a self-transfer', 'self_transfer'],
  ] as const)('refuses %s (%s) without an RPC call', async (_name, rule) => {
    const scenario = world.sandbox.scenario;
    if (!scenario) throw new Error('no scenario');
    const payer = rule === 'self_transfer' ? RECEIVER : world.wallet();
    if (rule === 'self_transfer') world.sandbox.control.setup.mint(scenario.usdc, RECEIVER.address, PRICE);
    if (rule === 'wrong_asset') world.sandbox.control.setup.mint(scenario.xlm, payer.address, PRICE);
    const requirements =
      rule === 'wrong_amount' ? { amount: '2025999' } : rule === 'wrong_asset' ? { asset: scenario.xlm } : {};
    const claim = await world.claim(app, payer, buyer(), { requirements });
    const trap = rpcTrap();
    expect(refusalOf(await app.get(PaymentService).accept(claim))).toEqual({ kind: 'rule', rule });
    expect(trap.remaining).toBe(1000);
  });

  it('refuses a payment whose settlement would cost more than the cap: nothing recorded, nothing sent', async () => {
    const capped = await world.startApp({ X402_MAX_SETTLEMENT_FEE_STROOPS: '1000' });
    const payer = world.wallet();
    const claim = await world.claim(capped, payer, buyer());
    const before = sponsorXlm();
    const outcome = await capped.get(PaymentService).accept(claim);
    expect(refusalOf(outcome)).toMatchObject({ kind: 'busy', retryAfterSeconds: expect.any(Number) });
    expect(await capped.get(PaymentRepository).lastSettled(claim.buyer.email)).toBeNull();
    expect(sponsorXlm()).toBe(before);
    expect(world.usdc(payer.address)).toBe(PRICE);
  });

  it('answers busy (ours, not the payment’s fault) when every lane stays taken, and settles once one is free', async () => {
    const oneLane = await world.startApp({ X402_SETTLEMENT_LANES: '1', SETTLEMENT_TIMEOUT_MS: '2000' });
    const lanes = oneLane.get(SettlementLanes);
    const held = await lanes.lease(Date.now() + 1000);
    expect(held).toBeDefined();
    const payer = world.wallet();
    const claim = await world.claim(oneLane, payer, buyer());

    const busy = await oneLane.get(PaymentService).accept(claim);
    expect(refusalOf(busy)).toMatchObject({ kind: 'busy' });
    const payments = oneLane.get(PaymentRepository);
    expect(await payments.lastSettling(claim.buyer.email)).toBeNull();

    if (held) await lanes.release(held);
    expect((await oneLane.get(PaymentService).accept(claim)).kind).toBe('paid');
  });

  it('reconciles: a settlement past its time bound that no ledger holds is released, a recent one stays', async () => {
    const payments = app.get(PaymentRepository);
    const record = async (validUntil: Date) => {
      const reserved = await payments.reserve({
        payer: world.wallet(0n).address,
        nonce: String(Math.floor(Math.random() * 1e12)),
        digest: 'd'.repeat(64),
        authExpiresLedger: 1_000_000,
        email: buyer().email,
        projectName: null,
        flow: 'direct',
        network: 'ledger:testnet',
        asset: world.requirements(app).asset,
        amount: PRICE.toString(),
        amountUsd: '0.2026',
      });
      return payments.markSettling(reserved.id, {
        txHash: Buffer.from(reserved.id.replace(/-/g, '').padEnd(64, '0').slice(0, 64), 'hex').toString('hex'),
        lane: RECEIVER.address,
        validUntil,
        maxFee: 200_000n,
      });
    };
    const stale = await record(new Date(Date.now() - 60_000));
    const recent = await record(new Date(Date.now() + 60_000));

    await app.get(SettlementReconciler).tick();
    expect(await payments.find(stale.id)).toBeNull();
    expect(await payments.find(recent.id)).toMatchObject({ status: 'settling' });
    // The one left unresolved is what the "settlements stuck" alert reads (k8s/monitoring/alerts.yaml).
    const sentAt = (await payments.find(recent.id))!.sentAt!.getTime();
    const gauge = await app.get(Registry).getSingleMetric('subscription_settlement_oldest_unresolved_seconds')!.get();
    expect(gauge.values[0].value).toBeGreaterThan(0);
    expect(gauge.values[0].value).toBeLessThanOrEqual((Date.now() - sentAt) / 1000);
    // The released claim may be used again: nothing of it was ever applied.
    expect(await payments.findClaim(stale.payer, stale.nonce)).toBeNull();
  });
});
