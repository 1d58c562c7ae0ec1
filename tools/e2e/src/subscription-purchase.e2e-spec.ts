/**
 * Buying an API key through the gateway, on the sandbox ledger: the direct flow with a SEP-5 wallet, the same
 * purchase by the official x402 client stack, and the server-assisted flow. Real processes, real XDR.
 */
import { type Stack, startStack } from '@rp/dev';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { ExactStellarScheme as ExactStellarClient } from '@x402/stellar/exact/client';
import { type PaymentRequired, createExactPayment, encodeX402Header } from '@rp/ledger';
import { Keypair, hash } from '@stellar/stellar-sdk';

const PRICE = 2_026_000n;
const json = { 'content-type': 'application/json' };
/** The subscription service taking payments on the sandbox, behind the gateway. */
const PAID = { apps: ['subscription', 'gateway'], env: { gateway: { KEY_CACHE_TTL_MS: '1000' } } } as const;

describe('buying an API key through the gateway', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(PAID);
  }, 120_000);
  afterAll(() => stack?.close());

  const subscribe = (body: object, headers: Record<string, string> = {}) =>
    fetch(`${stack.api.url}/keys/subscribe`, {
      method: 'POST',
      headers: { ...json, ...headers },
      body: JSON.stringify(body),
    });

  async function challenge(): Promise<{ body: Record<string, unknown>; header: PaymentRequired }> {
    const answer = await subscribe({ email: 'reader@example.com' });
    expect(answer.status).toBe(402);
    const header = answer.headers.get('payment-required');
    expect(header).toBeTruthy();
    return {
      body: (await answer.json()) as Record<string, unknown>,
      header: JSON.parse(Buffer.from(header ?? '', 'base64').toString('utf8')) as PaymentRequired,
    };
  }

  it('answers 402 with the spec body, x402Version, accepts and the PAYMENT-REQUIRED header', async () => {
    const { body, header } = await challenge();
    expect(body).toMatchObject({
      success: false,
      status: 402,
      code: 'PAYMENT_REQUIRED',
      error: expect.any(String),
      x402Version: 2,
      paymentRequirements: {
        scheme: 'exact',
        network: 'ledger:testnet',
        payTo: stack.scenario.paymentReceiver,
        asset: stack.scenario.usdc,
        amount: '2026000',
        maxTimeoutSeconds: 600,
      },
    });
    expect(body['accepts']).toEqual(header.accepts);
    expect(header).toMatchObject({
      x402Version: 2,
      resource: { url: expect.stringMatching(/\/api\/v1\/keys\/subscribe$/) },
      accepts: [{ scheme: 'exact', network: 'stellar:testnet', amount: '2026000', extra: { areFeesSponsored: true } }],
    });
  });

  it("publishes the subscription routes in the gateway's merged OpenAPI document", async () => {
    const document = (await (await fetch(`${stack.app('gateway').url}/api/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { summary?: string }>>;
    };
    for (const path of [
      '/api/v1/keys/subscribe',
      '/api/v1/keys/subscribe/prepare',
      '/api/v1/keys/subscribe/complete',
    ]) {
      expect(document.paths[path]?.['post']?.summary).toEqual(expect.any(String));
    }
    expect(document.paths['/api/v1/keys/subscribe/status']?.['get']).toBeDefined();
    expect(document.paths['/api/v1/keys/me']?.['get']).toBeDefined();
  });

  it('does not expose the internal routes (introspection, owners of accounts) through the gateway', async () => {
    for (const path of [
      '/internal/keys/introspect',
      '/api/v1/internal/keys/introspect',
      '/internal/accounts/owners',
      '/api/v1/internal/accounts/owners',
    ]) {
      const answer = await fetch(`${stack.app('gateway').url}${path}`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ apiKey: 'rp_test_' + 'a'.repeat(32) }),
      });
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
    }
  });

  it('direct flow: a SEP-5 wallet pays, gets a key that opens a protected route; status shows the payment', async () => {
    const payer = stack.wallet({ usdc: 5n * PRICE }).wallet;
    const { header } = await challenge();
    const before = {
      payer: stack.usdc(payer.address),
      receiver: stack.usdc(stack.scenario.paymentReceiver),
      sponsorXlm: stack.sandbox.ledger.account(stack.scenario.sponsor.address)?.balance ?? 0n,
      payerXlm: stack.sandbox.ledger.account(payer.address)?.balance,
    };
    const payment = await createExactPayment({ ledger: stack.ledger, payer, requirements: header.accepts[0] });

    const paid = await subscribe(
      { email: 'direct@example.com', projectName: 'Direct Buyer' },
      { 'X-PAYMENT-SIGNATURE': encodeX402Header(payment) },
    );
    const grant = (await paid.json()) as Record<string, unknown>;
    expect(paid.status).toBe(200);
    expect(Object.keys(grant).sort()).toEqual(
      ['apiKey', 'durationDays', 'expiresAt', 'message', 'network', 'rateLimit', 'tier'].sort(),
    );
    expect(grant).toMatchObject({ tier: 'standard', rateLimit: 60, durationDays: 30, network: 'ledger:testnet' });
    expect(grant['apiKey']).toMatch(/^rp_test_[0-9A-Za-z]{32}$/);
    const days = (Date.parse(String(grant['expiresAt'])) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.99);
    expect(days).toBeLessThan(30.01);

    const receipt = JSON.parse(Buffer.from(paid.headers.get('payment-response') ?? '', 'base64').toString('utf8'));
    expect(receipt).toMatchObject({ success: true, network: 'stellar:testnet', payer: payer.address });

    // Exactly the price moved, the payer kept its XLM, and the sponsor paid the fee of the settled transaction.
    expect(stack.usdc(stack.scenario.paymentReceiver) - before.receiver).toBe(PRICE);
    expect(before.payer - stack.usdc(payer.address)).toBe(PRICE);
    expect(stack.sandbox.ledger.account(payer.address)?.balance).toBe(before.payerXlm);
    const settled = await stack.ledger.getTransaction(receipt.transaction);
    expect(settled.status).toBe('SUCCESS');
    const fee = settled.status === 'SUCCESS' ? BigInt(settled.resultXdr.feeCharged().toString()) : -1n;
    expect(fee).toBeGreaterThan(0n);
    const sponsorAfter = stack.sandbox.ledger.account(stack.scenario.sponsor.address)?.balance ?? 0n;
    expect(before.sponsorXlm - sponsorAfter).toBe(fee);

    const me = await fetch(`${stack.api.url}/keys/me`, { headers: { Authorization: `Bearer ${grant['apiKey']}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({
      tier: 'standard',
      rateLimit: 60,
      burst: 120,
      email: 'direct@example.com',
      account: `wallet:${payer.address}`,
    });

    const status = await fetch(`${stack.api.url}/keys/subscribe/status?email=direct%40example.com`);
    expect(status.status).toBe(200);
    const body = (await status.json()) as { lastPayment: { txHash: string } };
    expect(body).toMatchObject({
      active: true,
      tier: 'standard',
      rateLimit: 60,
      expiresAt: grant['expiresAt'],
      lastPayment: { network: 'ledger:testnet', amountUsd: '0.2026', txHash: receipt.transaction },
    });
    const onLedger = await stack.ledger.getTransaction(body.lastPayment.txHash);
    expect(onLedger.status).toBe('SUCCESS');
  }, 60_000);

  it('the official x402 client stack buys a key driven only by the PAYMENT-REQUIRED header', async () => {
    const payer = stack.wallet({ usdc: PRICE }).wallet;
    const receiverBefore = stack.usdc(stack.scenario.paymentReceiver);
    const signer = { address: payer.address, signAuthEntry: payer.signAuthEntry };
    const client = new x402HTTPClient(
      new x402Client().register('stellar:testnet', new ExactStellarClient(signer, { url: stack.sandbox.secureRpcUrl })),
    );
    const request = { email: 'official@example.com', projectName: 'x402 client' };
    const first = await subscribe(request);
    expect(first.status).toBe(402);
    const required = client.getPaymentRequiredResponse((name) => first.headers.get(name));
    const payload = await client.createPaymentPayload(required);
    const second = await subscribe(request, client.encodePaymentSignatureHeader(payload));
    expect(second.status).toBe(200);
    const settle = client.getPaymentSettleResponse((name) => second.headers.get(name));
    expect(settle).toMatchObject({ success: true, payer: payer.address });
    expect(stack.usdc(stack.scenario.paymentReceiver) - receiverBefore).toBe(PRICE);
    expect(stack.usdc(payer.address)).toBe(0n);
  }, 60_000);

  it('server-assisted flow: prepare, sign the preimages with the wallet key, complete, grant with payTo', async () => {
    const payer = stack.wallet({ usdc: PRICE }).wallet;
    const prepared = await fetch(`${stack.api.url}/keys/subscribe/prepare`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ walletAddress: payer.address }),
    });
    expect(prepared.status).toBe(200);
    const preparation = (await prepared.json()) as {
      txJson: string;
      preimageXdrs: string[];
      maxLedger: number;
      networkPassphrase: string;
      x402Version: number;
    };
    expect(preparation).toMatchObject({ networkPassphrase: 'Test SDF Network ; September 2015', x402Version: 2 });
    expect(preparation.preimageXdrs).toHaveLength(1);
    const signedAuthEntries = preparation.preimageXdrs.map((preimage) =>
      payer.signHash(hash(Buffer.from(preimage, 'base64'))).toString('base64'),
    );
    const completion = {
      walletAddress: payer.address,
      txJson: preparation.txJson,
      preimageXdrs: preparation.preimageXdrs,
      signedAuthEntries,
      maxLedger: preparation.maxLedger,
      email: 'assisted@example.com',
      projectName: 'Wallet without x402',
    };
    const complete = (body: object) =>
      fetch(`${stack.api.url}/keys/subscribe/complete`, { method: 'POST', headers: json, body: JSON.stringify(body) });
    const completed = await complete(completion);
    const grant = (await completed.json()) as Record<string, unknown>;
    expect(completed.status).toBe(200);
    expect(grant).toMatchObject({ tier: 'standard', payTo: stack.scenario.paymentReceiver, network: 'ledger:testnet' });
    expect(grant['apiKey']).toMatch(/^rp_test_/);
    expect(grant).not.toHaveProperty('message');
    expect(stack.usdc(payer.address)).toBe(0n);

    // The same completion for another buyer is a replay: 409 from the record, before any RPC call or simulation.
    const trap = stack.sandbox.faults.add({ kind: 'rpc-error', count: 1000 });
    const replayed = await complete({ ...completion, email: 'someone-else@example.com' });
    expect(replayed.status).toBe(409);
    expect(await replayed.json()).toMatchObject({ code: 'PAYMENT_REPLAYED' });
    expect(trap.remaining).toBe(1000);
    stack.sandbox.faults.clear();
  }, 60_000);

  it('settles 20 purchases sent at once: every buyer gets a key, the receiver gets 20 prices', async () => {
    const { header } = await challenge();
    const payers = Array.from({ length: 20 }, () => stack.wallet({ usdc: PRICE }).wallet);
    const payments: string[] = [];
    for (const payer of payers) {
      payments.push(
        encodeX402Header(await createExactPayment({ ledger: stack.ledger, payer, requirements: header.accepts[0] })),
      );
    }
    const receiverBefore = stack.usdc(stack.scenario.paymentReceiver);
    const answers = await Promise.all(
      payments.map(async (payment, index) => {
        const answer = await subscribe({ email: `crowd-${index}@example.com` }, { 'X-PAYMENT-SIGNATURE': payment });
        const body = (await answer.json()) as Record<string, unknown>;
        return { status: answer.status, code: body['code'], apiKey: body['apiKey'] };
      }),
    );
    expect(answers.map((answer) => ({ status: answer.status, code: answer.code }))).toEqual(
      payers.map(() => ({ status: 200, code: undefined })),
    );
    expect(new Set(answers.map((answer) => answer.apiKey)).size).toBe(20);
    expect(stack.usdc(stack.scenario.paymentReceiver) - receiverBefore).toBe(20n * PRICE);
    for (const payer of payers) expect(stack.usdc(payer.address)).toBe(0n);
  }, 120_000);

  it('refuses a prepared payment signed by another key before touching the ledger', async () => {
    const payer = stack.wallet({ usdc: PRICE }).wallet;
    const prepared = (await (
      await fetch(`${stack.api.url}/keys/subscribe/prepare`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ walletAddress: payer.address }),
      })
    ).json()) as { txJson: string; preimageXdrs: string[]; maxLedger: number };
    const stranger = Keypair.random();
    // Every RPC call from now on would fail: a 402 (not a 502) and an untouched fault prove none was made.
    const trap = stack.sandbox.faults.add({ kind: 'rpc-error', count: 1000 });
    const answer = await fetch(`${stack.api.url}/keys/subscribe/complete`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        txJson: prepared.txJson,
        preimageXdrs: prepared.preimageXdrs,
        maxLedger: prepared.maxLedger,
        walletAddress: payer.address,
        signedAuthEntries: prepared.preimageXdrs.map((p) =>
          stranger.sign(hash(Buffer.from(p, 'base64'))).toString('base64'),
        ),
        email: 'stranger@example.com',
      }),
    });
    expect(answer.status).toBe(402);
    expect(await answer.json()).toMatchObject({
      code: 'PAYMENT_BAD_SIGNATURE',
      details: [{ field: 'signedAuthEntries[0]' }],
    });
    expect(trap.remaining).toBe(1000);
    stack.sandbox.faults.clear();
    expect(stack.usdc(payer.address)).toBe(PRICE);
  }, 30_000);
});
