/**
 * Every way a purchase is refused, through the gateway: each answer's status and code, and proof that nothing
 * happened (no subscription for the email, no balance moved, the sponsor paid no fee).
 */
import {
  type ExactRequirements,
  type PaymentPayload,
  LedgerWallet,
  createExactPayment,
  encodeX402Header,
} from '@rp/ledger';
import { DEMO_ACCOUNTS, DEMO_WALLETS } from '@rp/sandbox';
import { Keypair } from '@stellar/stellar-sdk';
import { AppProcess, type Stack, startStack } from '@rp/dev';
import { startApp } from './support/running-apps';

const PRICE = 2_026_000n;
const MNEMONIC = DEMO_WALLETS.healthy.mnemonic;
const HEALTHY_ADDRESS = LedgerWallet.fromMnemonic(MNEMONIC).address;
const json = { 'content-type': 'application/json' };
/** The subscription service taking payments on the sandbox, behind the gateway. */
const PAID = { apps: ['subscription', 'gateway'], env: { gateway: { KEY_CACHE_TTL_MS: '1000' } } } as const;

describe('refused purchases', () => {
  let stack: Stack;
  let requirements: ExactRequirements;
  let emails = 0;

  beforeAll(async () => {
    stack = await startStack(PAID);
    const challenge = await fetch(`${stack.api.url}/keys/subscribe`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'probe@example.com' }),
    });
    requirements = JSON.parse(Buffer.from(challenge.headers.get('payment-required') ?? '', 'base64').toString())
      .accepts[0];
  }, 120_000);
  afterAll(() => stack?.close());

  const nextEmail = () => `refused-${++emails}@example.com`;

  function send(payment: PaymentPayload | string, email: string, header = 'X-PAYMENT-SIGNATURE') {
    return fetch(`${stack.api.url}/keys/subscribe`, {
      method: 'POST',
      headers: { ...json, [header]: typeof payment === 'string' ? payment : encodeX402Header(payment) },
      body: JSON.stringify({ email }),
    });
  }

  function balances(payer: string) {
    return {
      payer: stack.usdc(payer),
      receiver: stack.usdc(stack.scenario.paymentReceiver),
      sponsorXlm: stack.sandbox.ledger.account(stack.scenario.sponsor.address)?.balance,
    };
  }

  async function expectNothingHappened(email: string, payer: string, before: ReturnType<typeof balances>) {
    const status = await fetch(`${stack.api.url}/keys/subscribe/status?email=${encodeURIComponent(email)}`);
    expect(status.status).toBe(404);
    expect(await status.json()).toMatchObject({ code: 'SUBSCRIPTION_NOT_FOUND' });
    expect(balances(payer)).toEqual(before);
  }

  async function refused(answer: Response, status: number, code: string) {
    const body = (await answer.json()) as Record<string, unknown>;
    expect({ status: answer.status, code: body['code'] }).toEqual({ status, code });
    if (status === 402) expect(answer.headers.get('payment-required')).toBeTruthy();
    return body;
  }

  async function waitForLedger(after: number) {
    while ((await stack.ledger.getLatestLedger()).sequence <= after) await new Promise((r) => setTimeout(r, 100));
  }

  const cases: [string, string, (payer: LedgerWallet) => Promise<PaymentPayload>][] = [
    [
      'a wrong amount',
      'PAYMENT_WRONG_AMOUNT',
      (payer) =>
        createExactPayment({ ledger: stack.ledger, payer, requirements: { ...requirements, amount: '2025999' } }),
    ],
    [
      'a wrong recipient',
      'PAYMENT_WRONG_RECIPIENT',
      (payer) =>
        createExactPayment({
          ledger: stack.ledger,
          payer,
          requirements: { ...requirements, payTo: DEMO_ACCOUNTS.liquidityProvider.address },
        }),
    ],
    [
      'a wrong asset',
      'PAYMENT_WRONG_ASSET',
      (payer) => {
        stack.sandbox.control.setup.mint(stack.scenario.xlm, payer.address, 100_000_000n);
        return createExactPayment({
          ledger: stack.ledger,
          payer,
          requirements: { ...requirements, asset: stack.scenario.xlm },
        });
      },
    ],
    [
      'an unsigned authorization',
      'PAYMENT_UNSIGNED',
      (payer) => createExactPayment({ ledger: stack.ledger, payer, requirements, unsigned: true }),
    ],
    [
      'a payment for another network',
      'PAYMENT_NETWORK_MISMATCH',
      async (payer) => {
        const payment = await createExactPayment({ ledger: stack.ledger, payer, requirements });
        return { ...payment, accepted: { ...payment.accepted, network: 'stellar:pubnet' } };
      },
    ],
    [
      'an expired authorization',
      'PAYMENT_EXPIRED',
      async (payer) => {
        // Twelve ledgers (3 s) of life: building the payment simulates it once signed, which must still pass.
        const latest = (await stack.ledger.getLatestLedger()).sequence;
        const payment = await createExactPayment({
          ledger: stack.ledger,
          payer,
          requirements,
          expirationLedger: latest + 12,
        });
        await waitForLedger(latest + 13);
        return payment;
      },
    ],
  ];

  it.each(cases)(
    'refuses %s with 402 %s; nothing is recorded or moved',
    async (_name, code, build) => {
      const payer = stack.wallet({ usdc: PRICE }).wallet;
      const payment = await build(payer);
      const before = balances(payer.address);
      const email = nextEmail();
      await refused(await send(payment, email), 402, code);
      await expectNothingHappened(email, payer.address, before);
    },
    30_000,
  );

  it('refuses the sponsor as payer', async () => {
    const sponsor = Keypair.fromSecret(stack.scenario.sponsor.secret);
    stack.sandbox.control.setup.mint(stack.scenario.usdc, sponsor.publicKey(), PRICE);
    const signer = {
      address: sponsor.publicKey(),
      signHash: (digest: Uint8Array) => sponsor.sign(Buffer.from(digest)),
    };
    const payment = await createExactPayment({ ledger: stack.ledger, payer: signer, requirements });
    const before = balances(sponsor.publicKey());
    const email = nextEmail();
    await refused(await send(payment, email), 402, 'PAYMENT_SPONSOR_AS_PAYER');
    await expectNothingHappened(email, sponsor.publicKey(), before);
  }, 30_000);

  it('settles a payment once: a replay is 409, a second payment the wallet can no longer fund fails simulation', async () => {
    const payer = stack.wallet({ usdc: PRICE }).wallet;
    const first = await createExactPayment({ ledger: stack.ledger, payer, requirements });
    const second = await createExactPayment({ ledger: stack.ledger, payer, requirements });
    expect((await send(first, 'paid-once@example.com')).status).toBe(200);

    const before = balances(payer.address);
    const replayEmail = nextEmail();
    await refused(await send(first, replayEmail, 'PAYMENT-SIGNATURE'), 409, 'PAYMENT_REPLAYED');
    await expectNothingHappened(replayEmail, payer.address, before);

    const unfundedEmail = nextEmail();
    await refused(await send(second, unfundedEmail, 'X-PAYMENT'), 402, 'PAYMENT_SIMULATION_FAILED');
    await expectNothingHappened(unfundedEmail, payer.address, before);
  }, 60_000);

  describe('bad input is a 400 naming the field', () => {
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${stack.api.url}/keys/subscribe${path}`, {
        method: 'POST',
        headers: { ...json, ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });

    it.each<[string, () => Promise<Response>, string]>([
      ['a malformed email', () => post('', { email: 'not-an-email' }), 'email'],
      [
        'an over-long project name',
        () => post('', { email: 'a@example.com', projectName: 'p'.repeat(101) }),
        'projectName',
      ],
      ['a bad G-address', () => post('/prepare', { walletAddress: 'GNOTANADDRESS' }), 'walletAddress'],
      [
        'garbage base64',
        () => post('', { email: 'a@example.com' }, { 'X-PAYMENT-SIGNATURE': '%%% not base64 %%%' }),
        'X-PAYMENT-SIGNATURE',
      ],
      [
        'a payload that is not JSON',
        () =>
          post('', { email: 'a@example.com' }, { 'X-PAYMENT-SIGNATURE': Buffer.from('{not json').toString('base64') }),
        'X-PAYMENT-SIGNATURE',
      ],
      [
        'an envelope that is not a transaction',
        () =>
          post(
            '',
            { email: 'a@example.com' },
            {
              'PAYMENT-SIGNATURE': encodeX402Header({
                x402Version: 2,
                accepted: requirements,
                payload: { transaction: 'AAAA' },
              }),
            },
          ),
        'PAYMENT-SIGNATURE.payload.transaction',
      ],
      ['an unknown field', () => post('', { email: 'a@example.com', admin: true }), 'admin'],
      [
        'a complete without signatures',
        () =>
          post('/complete', {
            email: 'a@example.com',
            walletAddress: HEALTHY_ADDRESS,
            txJson: '{}',
            preimageXdrs: [],
            signedAuthEntries: [],
            maxLedger: 5,
          }),
        'preimageXdrs',
      ],
    ])('%s', async (_name, call, field) => {
      const answer = await call();
      const body = (await answer.json()) as { details?: { field: string }[] };
      expect(answer.status).toBe(400);
      expect(body).toMatchObject({ success: false, status: 400, code: 'VALIDATION_FAILED' });
      expect(body.details?.map((detail) => detail.field)).toContain(field);
    });

    it('a body that is not JSON', async () => {
      const answer = await post('', '{"email": ');
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ code: 'MALFORMED_JSON' });
    });

    it('status without an email', async () => {
      const answer = await fetch(`${stack.api.url}/keys/subscribe/status`);
      expect(answer.status).toBe(400);
      const body = (await answer.json()) as { details: { field: string }[] };
      expect(new Set(body.details.map((detail) => detail.field))).toEqual(new Set(['email']));
    });
  });
});

describe('a server without payment settings', () => {
  let bare: AppProcess;
  beforeAll(async () => {
    bare = await startApp('subscription');
  }, 60_000);
  afterAll(() => bare?.stop());

  it.each([
    ['subscribe', '/api/v1/keys/subscribe', { email: 'a@example.com' }],
    ['prepare', '/api/v1/keys/subscribe/prepare', { walletAddress: HEALTHY_ADDRESS }],
  ])('answers %s with 503 PAYMENT_NOT_CONFIGURED', async (_name, path, body) => {
    const answer = await fetch(`${bare.url}${path}`, { method: 'POST', headers: json, body: JSON.stringify(body) });
    expect(answer.status).toBe(503);
    expect(await answer.json()).toMatchObject({ code: 'PAYMENT_NOT_CONFIGURED' });
  });
});
