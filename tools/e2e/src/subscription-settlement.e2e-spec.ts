/**
 * Settlement under attack and under failure, through the gateway, on a ledger that closes only when the test says
 * so (so a settlement can be caught in flight): a payload with inflated resources, a settlement that fails on the
 * ledger, a lost reply, a settlement longer than the request, a crash between send and outcome, a self-transfer.
 * Each test proves where the money went, to the stroop.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Stack, startStack } from '@rp/dev';
import {
  type ExactRequirements,
  type PaymentPayload,
  LedgerWallet,
  assemble,
  buildInvocation,
  createExactPayment,
  encodeX402Header,
  settlementLanes,
  simulate,
} from '@rp/ledger';
import { DEMO_WALLETS } from '@rp/sandbox';
import { Address, Keypair, Operation, Transaction, nativeToScVal, xdr } from '@stellar/stellar-sdk';

const PRICE = 2_026_000n;
const MNEMONIC = DEMO_WALLETS.healthy.mnemonic;
const FEE_CAP = 200_000n;
const json = { 'content-type': 'application/json' };
/** The subscription service taking payments on the sandbox, behind the gateway. */
const PAID = { apps: ['subscription', 'gateway'], env: { gateway: { KEY_CACHE_TTL_MS: '1000' } } } as const;
/** The receiving address is a wallet of ours here, so a self-transfer can be signed. */
const RECEIVER = LedgerWallet.fromMnemonic(MNEMONIC, { index: 900 });

describe('settlement', () => {
  let stack: Stack;
  let requirements: ExactRequirements;
  let dataDir: string;
  let emails = 0;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rp-settlement-'));
    stack = await startStack({
      ...PAID,
      ledgerIntervalMs: 0,
      env: {
        ...PAID.env,
        subscription: {
          DATABASE_URL: `sqlite://${join(dataDir, 'subscription.sqlite')}`,
          X402_PAYMENT_ADDRESS_LEDGER: RECEIVER.address,
          X402_MAX_SETTLEMENT_FEE_STROOPS: String(FEE_CAP),
          SETTLEMENT_TIMEOUT_MS: '4000',
          SETTLEMENT_RECONCILE_INTERVAL_MS: '500',
        },
      },
    });
    stack.sandbox.control.setup.fund(RECEIVER.address, 100_000_000n, 'e2e receiver');
    const challenge = await fetch(`${stack.api.url}/keys/subscribe`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'probe@example.com' }),
    });
    requirements = JSON.parse(Buffer.from(challenge.headers.get('payment-required') ?? '', 'base64').toString())
      .accepts[0];
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  afterEach(() => stack.sandbox.faults.clear());

  const nextEmail = () => `settlement-${++emails}@example.com`;
  const sponsorXlm = () => stack.sandbox.ledger.account(stack.scenario.sponsor.address)?.balance ?? 0n;
  const lanesXlm = () =>
    settlementLanes(Keypair.fromSecret(stack.scenario.sponsor.secret), stack.scenario.settlementLanes).reduce(
      (sum, lane) => sum + (stack.sandbox.ledger.account(lane.publicKey())?.balance ?? 0n),
      0n,
    );

  function send(payment: PaymentPayload | string, email: string): Promise<Response> {
    return fetch(`${stack.api.url}/keys/subscribe`, {
      method: 'POST',
      headers: { ...json, 'X-PAYMENT-SIGNATURE': typeof payment === 'string' ? payment : encodeX402Header(payment) },
      body: JSON.stringify({ email }),
    });
  }

  async function answerOf(answer: Response): Promise<{ status: number; body: Record<string, unknown> }> {
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  }

  /** Waits until `count` transactions wait in the ledger's queue. */
  async function queued(count: number): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (stack.sandbox.ledger.pendingCount < count) {
      if (Date.now() > deadline) throw new Error(`${count} transaction(s) never reached the ledger's queue`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Closes the next ledger once `count` transactions wait for it. */
  async function closeWhenQueued(count = 1): Promise<void> {
    await queued(count);
    stack.sandbox.ledger.closeLedger();
  }

  /** A transfer of the payer's own, with the payer as source: how a payer empties its balance. */
  async function ownTransfer(payer: LedgerWallet, to: string, amount: bigint): Promise<string> {
    const account = stack.sandbox.ledger.account(payer.address);
    if (!account) throw new Error('the payer has no account');
    const tx = buildInvocation({
      source: payer.address,
      sequence: account.sequence,
      op: Operation.invokeContractFunction({
        contract: stack.scenario.usdc,
        function: 'transfer',
        args: [
          new Address(payer.address).toScVal(),
          new Address(to).toScVal(),
          nativeToScVal(amount, { type: 'i128' }),
        ],
      }),
      validUntil: Math.floor(Date.now() / 1000) + 300,
      network: 'ledger:testnet',
    });
    const assembled = assemble(tx, await simulate(stack.ledger, tx));
    return payer.signTransaction(assembled).toEnvelope().toXDR('base64');
  }

  /**
   * A payment whose authorization lives 30 ledgers. Ledgers close when a test says so here, so their average close
   * time (which sets the usual window) says nothing; 30 ledgers is inside the window at any pace under 20 s.
   */
  async function pay(payer: LedgerWallet): Promise<PaymentPayload> {
    const expirationLedger = (await stack.ledger.getLatestLedger()).sequence + 30;
    return createExactPayment({ ledger: stack.ledger, payer, requirements, expirationLedger });
  }

  /** The last ledger the payer's authorization of a payment is valid in. */
  function authExpiration(payment: PaymentPayload): number {
    const tx = new Transaction(payment.payload.transaction, stack.sandbox.ledger.passphrase);
    const operation = tx.operations[0] as Operation.InvokeHostFunction;
    return operation.auth?.[0]?.credentials().address().signatureExpirationLedger() ?? 0;
  }

  /** The payment with the Soroban resources a greedy payer would declare: 1 XLM of resource fee, every limit high. */
  function inflated(payment: PaymentPayload): PaymentPayload {
    const tx = new Transaction(payment.payload.transaction, stack.sandbox.ledger.passphrase);
    const envelope = tx.toEnvelope();
    const data = envelope.v1().tx().ext().sorobanData();
    data.resourceFee(xdr.Int64.fromString('10000000'));
    data.resources().instructions(100_000_000);
    envelope.v1().tx().fee(10_000_100);
    return { ...payment, payload: { transaction: envelope.toXDR('base64') } };
  }

  it('costs the sponsor one capped fee for a payload with inflated resources that fails on the ledger, however often it comes', async () => {
    const payer = stack.wallet({ usdc: PRICE }).wallet;
    const payment = inflated(await pay(payer));
    const emptying = await ownTransfer(payer, stack.scenario.paymentReceiver, PRICE);
    const before = { sponsor: sponsorXlm() + lanesXlm(), receiver: stack.usdc(RECEIVER.address) };

    // The payer empties its balance in the same ledger, ahead of the settlement: it passes simulation, then fails.
    expect(stack.sandbox.ledger.submit(emptying).status).toBe('PENDING');
    const first = send(payment, nextEmail());
    await closeWhenQueued(2);
    const failed = await answerOf(await first);
    expect({ status: failed.status, code: failed.body['code'] }).toEqual({
      status: 402,
      code: 'PAYMENT_FAILED_ON_LEDGER',
    });
    const cost = before.sponsor - (sponsorXlm() + lanesXlm());
    expect(cost).toBeGreaterThan(0n);
    expect(cost).toBeLessThanOrEqual(FEE_CAP);

    // Sent again, twice: refused from the record, the ledger not asked (every RPC call would fail) and not paid.
    stack.sandbox.faults.add({ kind: 'rpc-error', method: '*', count: 100 });
    for (const email of [nextEmail(), nextEmail()]) {
      const again = await answerOf(await send(payment, email));
      expect({ status: again.status, code: again.body['code'] }).toEqual({
        status: 402,
        code: 'PAYMENT_FAILED_ON_LEDGER',
      });
    }
    expect(stack.sandbox.faults.list()[0]?.remaining).toBe(100);
    stack.sandbox.faults.clear();
    expect(before.sponsor - (sponsorXlm() + lanesXlm())).toBe(cost);
    expect(stack.usdc(RECEIVER.address)).toBe(before.receiver);

    // The payer's next payment waits: a payer whose payments fail on the ledger is slowed down.
    stack.sandbox.control.setup.mint(stack.scenario.usdc, payer.address, PRICE);
    const next = await pay(payer);
    const slowed = await send(next, nextEmail());
    expect(slowed.status).toBe(429);
    expect(await slowed.json()).toMatchObject({ code: 'PAYER_COOLING_DOWN' });
    expect(Number(slowed.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 60_000);

  it('grants the key when the replies to the settlement are lost, and takes the price once', async () => {
    const payer = stack.wallet({ usdc: PRICE }).wallet;
    const payment = await pay(payer);
    const receiverBefore = stack.usdc(RECEIVER.address);
    stack.sandbox.faults.add({ kind: 'lose-reply', method: 'sendTransaction', count: 3 });

    const answer = send(payment, nextEmail());
    await closeWhenQueued();
    const granted = await answerOf(await answer);
    expect(granted.status).toBe(200);
    expect(granted.body['apiKey']).toMatch(/^rp_test_/);
    expect(stack.usdc(payer.address)).toBe(0n);
    expect(stack.usdc(RECEIVER.address) - receiverBefore).toBe(PRICE);
  }, 60_000);

  it('answers 202 past the settlement bound; the same payment is in progress, then collects the key, then a fresh one', async () => {
    const payer = stack.wallet({ usdc: PRICE }).wallet;
    const payment = await pay(payer);
    const email = nextEmail();

    const pending = await send(payment, email);
    const settling = (await pending.json()) as Record<string, unknown>;
    expect({ status: pending.status, code: settling['code'] }).toEqual({ status: 202, code: undefined });
    expect(settling).toEqual({ status: 'settling', txHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(Number(pending.headers.get('retry-after'))).toBeGreaterThan(0);

    const status = await fetch(`${stack.api.url}/keys/subscribe/status?email=${encodeURIComponent(email)}`);
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({
      active: false,
      lastPayment: { txHash: settling['txHash'] },
      settling: { txHash: settling['txHash'] },
    });

    const again = await send(payment, email);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'PAYMENT_IN_PROGRESS' });
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);

    stack.sandbox.ledger.closeLedger();
    const collected = await answerOf(await send(payment, email));
    expect(collected.status).toBe(200);
    const firstKey = String(collected.body['apiKey']);
    expect((await keyAnswer(firstKey)).status).toBe(200);

    // The answer was lost again: the identical payment gets a fresh key, and the one before stops working.
    const recollected = await answerOf(await send(payment, email));
    expect(recollected.status).toBe(200);
    const secondKey = String(recollected.body['apiKey']);
    expect(secondKey).not.toBe(firstKey);
    expect((await keyAnswer(secondKey)).status).toBe(200);
    await expectEventually(async () => (await keyAnswer(firstKey)).status, 401);

    // Anyone else sending it is replaying it; so is its own buyer once the authorization has expired.
    const replayed = await answerOf(await send(payment, nextEmail()));
    expect({ status: replayed.status, code: replayed.body['code'] }).toEqual({
      status: 409,
      code: 'PAYMENT_REPLAYED',
    });
    while (stack.sandbox.ledger.latest.sequence <= authExpiration(payment)) stack.sandbox.ledger.closeLedger();
    const expired = await answerOf(await send(payment, email));
    expect({ status: expired.status, code: expired.body['code'] }).toEqual({ status: 409, code: 'PAYMENT_REPLAYED' });
    expect(stack.usdc(payer.address)).toBe(0n);
  }, 60_000);

  it('finishes a settlement its process crashed on: the status shows the payment, the same payment collects the key', async () => {
    const payer = stack.wallet({ usdc: PRICE }).wallet;
    const payment = await pay(payer);
    const email = nextEmail();

    const cut = send(payment, email).catch((error: unknown) => error);
    await queued(stack.sandbox.ledger.pendingCount + 1);
    await stack.crash(stack.app('subscription'), async () => {
      expect(await cut).toMatchObject({ status: expect.any(Number) });
      stack.sandbox.ledger.closeLedger();
    });
    expect(stack.usdc(payer.address)).toBe(0n);

    await expectEventually(async () => {
      const status = await fetch(`${stack.api.url}/keys/subscribe/status?email=${encodeURIComponent(email)}`);
      const body = (await status.json()) as { lastPayment?: { paidAt?: string }; settling?: unknown };
      return status.status === 200 && body.settling === undefined ? 'settled' : `${status.status}`;
    }, 'settled');

    const collected = await answerOf(await send(payment, email));
    expect(collected.status).toBe(200);
    expect((await keyAnswer(String(collected.body['apiKey']))).status).toBe(200);
  }, 120_000);

  it('refuses a transfer from the receiving address to itself with 402 PAYMENT_SELF_TRANSFER', async () => {
    stack.sandbox.control.setup.mint(stack.scenario.usdc, RECEIVER.address, PRICE);
    const payment = await pay(RECEIVER);
    const before = { receiver: stack.usdc(RECEIVER.address), sponsor: sponsorXlm() + lanesXlm() };
    const refused = await answerOf(await send(payment, nextEmail()));
    expect({ status: refused.status, code: refused.body['code'] }).toEqual({
      status: 402,
      code: 'PAYMENT_SELF_TRANSFER',
    });
    expect({ receiver: stack.usdc(RECEIVER.address), sponsor: sponsorXlm() + lanesXlm() }).toEqual(before);
  });

  function keyAnswer(apiKey: string): Promise<Response> {
    return fetch(`${stack.api.url}/keys/me`, { headers: { Authorization: `Bearer ${apiKey}` } });
  }
});

/** Polls `read` until it gives `expected` (about 20 s at most), then asserts it. */
async function expectEventually<T>(read: () => Promise<T>, expected: T): Promise<void> {
  const deadline = Date.now() + 20_000;
  let value = await read();
  while (value !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await read();
  }
  expect(value).toEqual(expected);
}
