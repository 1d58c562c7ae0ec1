/**
 * Ledgers closing every 6 seconds, slower than the 5 s the x402 libraries assume when they cannot measure: the
 * payment builder, the server-assisted prepare and the server's own check compute one expiration window, so a
 * payment built either way is accepted from the first request, and one signed for the 5 s pace is refused.
 */
import { type Stack, startStack } from '@rp/dev';
import { type ExactRequirements, createExactPayment, encodeX402Header } from '@rp/ledger';
import { Transaction, hash } from '@stellar/stellar-sdk';

const PRICE = 2_026_000n;
const json = { 'content-type': 'application/json' };
/** The subscription service taking payments on the sandbox, behind the gateway. */
const PAID = { apps: ['subscription', 'gateway'], env: { gateway: { KEY_CACHE_TTL_MS: '1000' } } } as const;
/**
 * ceil(maxTimeoutSeconds 600 / estimate): the estimate is the average close time of the last 20 ledgers rounded
 * up, 6 s or (when timer jitter makes one interval read 7 s) 7 s; never the 5 s fallback (120 ledgers).
 */
const MOST_LEDGERS = 100;
const FEWEST_LEDGERS = 86;

describe('payments with ledgers closing every 6 s', () => {
  let stack: Stack;
  let requirements: ExactRequirements;

  beforeAll(async () => {
    stack = await startStack({ ...PAID, ledgerIntervalMs: 6000 });
    const challenge = await fetch(`${stack.api.url}/keys/subscribe`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'probe@example.com' }),
    });
    requirements = JSON.parse(Buffer.from(challenge.headers.get('payment-required') ?? '', 'base64').toString())
      .accepts[0];
  }, 120_000);
  afterAll(() => stack?.close());

  const latest = async () => (await stack.ledger.getLatestLedger()).sequence;

  function send(transaction: string, email: string): Promise<Response> {
    const payment = { x402Version: 2, accepted: requirements, payload: { transaction } };
    return fetch(`${stack.api.url}/keys/subscribe`, {
      method: 'POST',
      headers: { ...json, 'X-PAYMENT-SIGNATURE': encodeX402Header(payment) },
      body: JSON.stringify({ email }),
    });
  }

  function expirationOf(transaction: string): number {
    const tx = new Transaction(transaction, stack.sandbox.ledger.passphrase);
    const auth = (
      tx.operations[0] as { auth?: { credentials(): { address(): { signatureExpirationLedger(): number } } }[] }
    ).auth;
    return auth?.[0]?.credentials().address().signatureExpirationLedger() ?? 0;
  }

  it('our payment builder signs for the 6 s pace, and the payment is settled', async () => {
    const payer = stack.wallet({ usdc: PRICE }).wallet;
    const before = await latest();
    const payment = await createExactPayment({ ledger: stack.ledger, payer, requirements });
    const expiration = expirationOf(payment.payload.transaction);
    expect(expiration - before).toBeGreaterThanOrEqual(FEWEST_LEDGERS);
    expect(expiration - (await latest())).toBeLessThanOrEqual(MOST_LEDGERS);

    const answer = await send(payment.payload.transaction, 'builder@example.com');
    expect(answer.status).toBe(200);
    expect(stack.usdc(payer.address)).toBe(0n);
  }, 60_000);

  it('prepare hands out the same window, and the completed payment is settled', async () => {
    const payer = stack.wallet({ usdc: PRICE }).wallet;
    const before = await latest();
    const prepared = (await (
      await fetch(`${stack.api.url}/keys/subscribe/prepare`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ walletAddress: payer.address }),
      })
    ).json()) as { txJson: string; preimageXdrs: string[]; maxLedger: number };
    expect(prepared.maxLedger - before).toBeGreaterThanOrEqual(FEWEST_LEDGERS);
    expect(prepared.maxLedger - (await latest())).toBeLessThanOrEqual(MOST_LEDGERS);

    const completed = await fetch(`${stack.api.url}/keys/subscribe/complete`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        walletAddress: payer.address,
        txJson: prepared.txJson,
        preimageXdrs: prepared.preimageXdrs,
        signedAuthEntries: prepared.preimageXdrs.map((preimage) =>
          payer.signHash(hash(Buffer.from(preimage, 'base64'))).toString('base64'),
        ),
        maxLedger: prepared.maxLedger,
        email: 'assisted-slow@example.com',
      }),
    });
    expect(completed.status).toBe(200);
    expect(stack.usdc(payer.address)).toBe(0n);
  }, 60_000);

  it('refuses an authorization signed for the 5 s pace (120 ledgers) as living too long, before any settlement', async () => {
    const payer = stack.wallet({ usdc: PRICE }).wallet;
    const expirationLedger = (await latest()) + 120;
    const payment = await createExactPayment({ ledger: stack.ledger, payer, requirements, expirationLedger });
    const answer = await send(payment.payload.transaction, 'five-seconds@example.com');
    expect(answer.status).toBe(402);
    expect(await answer.json()).toMatchObject({ code: 'PAYMENT_EXPIRES_TOO_LATE' });
    expect(stack.usdc(payer.address)).toBe(PRICE);
  }, 30_000);
});
