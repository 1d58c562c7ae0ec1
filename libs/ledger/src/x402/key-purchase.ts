import { createHash } from 'node:crypto';
import type { SubscriptionGrant } from '@rp/contracts';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { ExactStellarScheme as ExactStellarClient } from '@x402/stellar/exact/client';
import { networkFromCaip2, networkPassphrase } from '../network/ledger-network';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import { parseRpcUrlList } from '../rpc/rpc-url-list';
import { TokenClient } from '../token/token-client';
import type { LedgerWallet } from '../wallet/ledger-wallet';
import { brokenExactRule, readExactTransfer } from './exact-transfer';
import { type PurchaseLimits, type PurchaseRefusal, chooseOffer } from './purchase-limits';
import type { ExactRequirements } from './x402-messages';

type Caip2Network = 'stellar:testnet' | 'stellar:pubnet';
type PaymentRequired = ReturnType<x402HTTPClient['getPaymentRequiredResponse']>;

export interface KeyPurchaseClientOptions {
  /** The gateway (or subscription service) base address, e.g. `http://127.0.0.1:3000`. */
  gatewayUrl: string;
  wallet: LedgerWallet;
  email: string;
  projectName?: string;
  /** Soroban RPC the x402 client builds the payment with (HTTP is accepted on testnet only). */
  rpcUrl: string;
  network?: Caip2Network;
  /** When given, the wallet's balance of the asset asked for is read first: too little is `INSUFFICIENT_FUNDS`. */
  ledger?: LedgerRpc;
  /** Aborts a request that takes too long. */
  requestTimeoutMs?: number;
}

export interface KeyPurchaseOptions extends KeyPurchaseClientOptions {
  /** What the buyer agrees to pay: an offer outside them is refused before anything is signed. */
  limits: PurchaseLimits;
  /** What the buyer signed in the last 30 days, in base units (the spend cap); 0 when not given. */
  spent30d?: bigint;
  /** How many times a pending payment is sent again (after its `Retry-After`); 10 by default. */
  settlingRounds?: number;
}

export type PurchaseErrorCode =
  | 'INSUFFICIENT_FUNDS'
  | 'UNEXPECTED_ANSWER'
  | 'PAYMENT_REFUSED'
  | 'STILL_SETTLING'
  | 'LIMIT_REFUSED'
  | 'SERVICE_UNREACHABLE';

export class PurchaseError extends Error {
  override readonly name = 'PurchaseError';

  constructor(
    readonly code: PurchaseErrorCode,
    message: string,
    /** For `INSUFFICIENT_FUNDS`: what the wallet holds and what the key costs, in the asset's base units. */
    readonly funds?: { asset: string; held: bigint; price: bigint },
    /** For `LIMIT_REFUSED`: which limit the offer broke. */
    readonly refusal?: PurchaseRefusal,
  ) {
    super(message);
  }
}

export interface KeyPurchase {
  grant: SubscriptionGrant;
  /** The settlement transaction of the payment. */
  txHash: string;
}

/** A `PAYMENT-REQUIRED` and the one offer of it the limits allow. */
export interface ChosenOffer {
  required: PaymentRequired;
  offer: ExactRequirements;
}

/** A payment signed for one offer: kept and sent again, identical, until it is collected or its authorization expires. */
export interface SignedPayment {
  /** sha256 of the payment header: the payment's identity. */
  id: string;
  /** The payment headers to send (`PAYMENT-SIGNATURE`). */
  headers: Record<string, string>;
  amount: string;
  asset: string;
  payTo: string;
  network: string;
  /** The last ledger the authorization is valid in: after it the payment can never settle. */
  authExpiresLedger: number;
}

/** What the service made of a signed payment. */
export type CollectOutcome =
  | { kind: 'granted'; grant: SubscriptionGrant; txHash: string }
  /** 202 `settling` or 409 `PAYMENT_IN_PROGRESS`: the same payment again collects the key. */
  | { kind: 'pending'; status: number; retryAfterSeconds: number; detail: string }
  /** No answer, 429 or 5xx: nothing known; the same payment again. */
  | { kind: 'unreachable'; retryAfterSeconds: number; detail: string }
  /** Any other answer: this payment is not taken (it is never sent again). */
  | { kind: 'refused'; status: number; code: string; detail: string };

/**
 * The direct x402 flow of one buyer, step by step, the way any x402 client does it: `offer` POSTs subscribe and
 * reads the 402's `PAYMENT-REQUIRED`, keeping the one offer the limits allow; `sign` lets the official `@x402/core`
 * client with `@x402/stellar`'s exact scheme build and sign it with the wallet, then checks that what was signed is
 * that offer; `collect` sends it. The agent keeps the signed payment between the steps (so it can send the same one
 * again after a restart); `purchaseKey` runs them in a row.
 */
export class KeyPurchaseClient {
  private readonly network: Caip2Network;
  private readonly client: x402HTTPClient;
  private readonly url: string;

  constructor(private readonly options: KeyPurchaseClientOptions) {
    this.network = options.network ?? 'stellar:testnet';
    const { wallet } = options;
    this.client = new x402HTTPClient(
      new x402Client().register(
        this.network,
        new ExactStellarClient({ address: wallet.address, signAuthEntry: wallet.signAuthEntry }, { url: options.ledger?.urlInUse() ?? parseRpcUrlList(options.rpcUrl)[0] }),
      ),
    );
    this.url = `${options.gatewayUrl.replace(/\/$/, '')}/api/v1/keys/subscribe`;
  }

  /** The 402's offer the limits allow; `LIMIT_REFUSED` (with the reason) when none is, nothing signed. */
  async offer(limits: PurchaseLimits, spent30d = 0n): Promise<ChosenOffer> {
    let challenge: Response;
    try {
      challenge = await this.post();
    } catch (error) {
      throw new PurchaseError('SERVICE_UNREACHABLE', `the service did not answer: ${(error as Error).message}`);
    }
    if (challenge.status !== 402) {
      const text = await challenge.text().catch(() => '');
      throw new PurchaseError('UNEXPECTED_ANSWER', `expected 402, got ${challenge.status}: ${text.slice(0, 200)}`);
    }
    await challenge.body?.cancel().catch(() => undefined);
    let required: PaymentRequired;
    try {
      required = this.client.getPaymentRequiredResponse((name) => challenge.headers.get(name));
    } catch (error) {
      throw new PurchaseError('UNEXPECTED_ANSWER', `unreadable PAYMENT-REQUIRED: ${(error as Error).message}`);
    }
    const chosen = chooseOffer(required.accepts, limits, spent30d);
    if ('refusal' in chosen) {
      throw new PurchaseError('LIMIT_REFUSED', `payment refused: ${chosen.refusal.message}`, undefined, chosen.refusal);
    }
    const { offer } = chosen;
    if (this.options.ledger) {
      const price = BigInt(offer.amount);
      const held = await new TokenClient(this.options.ledger, offer.asset).balance(this.options.wallet.address);
      if (held < price) {
        throw new PurchaseError(
          'INSUFFICIENT_FUNDS',
          `the wallet holds ${held} base units of ${offer.asset}, the key costs ${price}`,
          { asset: offer.asset, held, price },
        );
      }
    }
    return { required, offer };
  }

  /** Signs the chosen offer, and only it: the signed transfer is read back and checked against the offer. */
  async sign({ required, offer }: ChosenOffer): Promise<SignedPayment> {
    // The offer is one of `accepts` (chosen by identity): the client gets it alone, so it cannot pick another.
    const accepts = required.accepts.filter((accept) => (accept as unknown) === offer);
    const payload = await this.client.createPaymentPayload({ ...required, accepts });
    const passphrase = networkPassphrase(networkFromCaip2(offer.network));
    const transfer = readExactTransfer(payload.payload['transaction'] as string, passphrase);
    const broken = brokenExactRule(transfer, {
      asset: offer.asset,
      payTo: offer.payTo,
      amount: BigInt(offer.amount),
      sponsors: new Set(),
      passphrase,
    });
    if (broken || transfer.from !== this.options.wallet.address) {
      throw new PurchaseError('UNEXPECTED_ANSWER', `the x402 client signed another payment than offered (${broken})`);
    }
    const headers = this.client.encodePaymentSignatureHeader(payload);
    return {
      id: createHash('sha256').update(Object.values(headers).join('\n')).digest('hex'),
      headers,
      amount: offer.amount,
      asset: offer.asset,
      payTo: offer.payTo,
      network: offer.network,
      authExpiresLedger: Math.max(...transfer.authorizations.map((auth) => auth.expirationLedger ?? 0)),
    };
  }

  /** Sends the signed payment (the first time or again, identical). */
  async collect(payment: SignedPayment): Promise<CollectOutcome> {
    let paid: Response;
    try {
      paid = await this.post(payment.headers);
    } catch (error) {
      return { kind: 'unreachable', retryAfterSeconds: 5, detail: (error as Error).message };
    }
    const retryAfterSeconds = Math.min(Math.max(Number(paid.headers.get('retry-after') ?? '2') || 2, 1), 30);
    const text = await paid.text().catch(() => '');
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      // not JSON: the status decides
    }
    const code = typeof body['code'] === 'string' ? body['code'] : `HTTP_${paid.status}`;
    const detail = `${paid.status} ${code}${typeof body['error'] === 'string' ? `: ${body['error']}` : ''}`;
    if (paid.status === 200 && typeof body['apiKey'] === 'string') {
      let txHash = '';
      try {
        txHash = this.client.getPaymentSettleResponse((name) => paid.headers.get(name)).transaction;
      } catch {
        // A grant collected after `settling` may come without the settlement header; the grant is what counts.
      }
      return { kind: 'granted', grant: body as unknown as SubscriptionGrant, txHash };
    }
    if (paid.status === 202 || (paid.status === 409 && code === 'PAYMENT_IN_PROGRESS')) {
      return { kind: 'pending', status: paid.status, retryAfterSeconds, detail };
    }
    if (paid.status === 429 || paid.status >= 500) return { kind: 'unreachable', retryAfterSeconds, detail };
    return { kind: 'refused', status: paid.status, code, detail };
  }

  /** Whether the payment's authorization is still valid (it could still settle); without a ledger, assumed so. */
  async alive(payment: SignedPayment): Promise<boolean> {
    if (!this.options.ledger) return true;
    return (await this.options.ledger.getLatestLedger()).sequence <= payment.authExpiresLedger;
  }

  private post(extra: Record<string, string> = {}): Promise<Response> {
    return fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...extra },
      body: JSON.stringify({
        email: this.options.email,
        ...(this.options.projectName ? { projectName: this.options.projectName } : {}),
      }),
      signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 60_000),
    });
  }
}

/**
 * Buys an API key with the direct x402 flow within `limits`: reads the offer, signs it, sends it, and sends the
 * identical payment again on 202 `settling`, 409 `PAYMENT_IN_PROGRESS` and no answer (after its `Retry-After`)
 * while its authorization lives: a second payment is never signed. Used by `npm run buy-key`; the agent runs the
 * same steps with the payment kept in its database.
 */
export async function purchaseKey(options: KeyPurchaseOptions): Promise<KeyPurchase> {
  const client = new KeyPurchaseClient(options);
  const payment = await client.sign(await client.offer(options.limits, options.spent30d ?? 0n));
  let outcome = await client.collect(payment);
  for (let round = 0; round < (options.settlingRounds ?? 10); round += 1) {
    if (outcome.kind !== 'pending' && outcome.kind !== 'unreachable') break;
    const waitMs = outcome.retryAfterSeconds * 1000;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    if (!(await client.alive(payment).catch(() => true))) break;
    outcome = await client.collect(payment);
  }
  if (outcome.kind === 'granted') return { grant: outcome.grant, txHash: outcome.txHash };
  if (outcome.kind === 'refused') throw new PurchaseError('PAYMENT_REFUSED', `payment refused (${outcome.detail})`);
  throw new PurchaseError('STILL_SETTLING', `the payment is still settling (${outcome.detail})`);
}
