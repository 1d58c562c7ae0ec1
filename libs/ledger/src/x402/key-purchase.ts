import type { SubscriptionGrant } from '@rp/contracts';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { ExactStellarScheme as ExactStellarClient } from '@x402/stellar/exact/client';
import type { LedgerRpc } from '../rpc/ledger-rpc';
import { TokenClient } from '../token/token-client';
import type { LedgerWallet } from '../wallet/ledger-wallet';

export interface KeyPurchaseOptions {
  /** The gateway (or subscription service) base address, e.g. `http://127.0.0.1:3000`. */
  gatewayUrl: string;
  wallet: LedgerWallet;
  email: string;
  projectName?: string;
  /** Soroban RPC the x402 client builds the payment with (HTTP is accepted on testnet only). */
  rpcUrl: string;
  network?: 'stellar:testnet' | 'stellar:pubnet';
  /** When given, the wallet's balance of the asset asked for is read first: too little is `INSUFFICIENT_FUNDS`. */
  ledger?: LedgerRpc;
  /** How many times a `202 settling` answer is collected again (after its `Retry-After`); 10 by default. */
  settlingRounds?: number;
  /** Aborts a purchase that takes too long (each request). */
  requestTimeoutMs?: number;
}

export type PurchaseErrorCode = 'INSUFFICIENT_FUNDS' | 'UNEXPECTED_ANSWER' | 'PAYMENT_REFUSED' | 'STILL_SETTLING';

export class PurchaseError extends Error {
  override readonly name = 'PurchaseError';

  constructor(
    readonly code: PurchaseErrorCode,
    message: string,
    /** For `INSUFFICIENT_FUNDS`: what the wallet holds and what the key costs, in the asset's base units. */
    readonly funds?: { asset: string; held: bigint; price: bigint },
  ) {
    super(message);
  }
}

export interface KeyPurchase {
  grant: SubscriptionGrant;
  /** The settlement transaction of the payment. */
  txHash: string;
}

/**
 * Buys an API key with the direct x402 flow, the way any x402 client would: POST subscribe, read the
 * `PAYMENT-REQUIRED` header, let the official `@x402/core` client with `@x402/stellar`'s exact scheme build and sign
 * the payment with the wallet, resend with the payment signature. A `202 settling` answer is collected again with
 * the same signature once its `Retry-After` has passed. Used by `npm run buy-key` and by the agent.
 */
export async function purchaseKey(options: KeyPurchaseOptions): Promise<KeyPurchase> {
  const { wallet } = options;
  const network = options.network ?? 'stellar:testnet';
  const client = new x402HTTPClient(
    new x402Client().register(
      network,
      new ExactStellarClient({ address: wallet.address, signAuthEntry: wallet.signAuthEntry }, { url: options.rpcUrl }),
    ),
  );
  const url = `${options.gatewayUrl.replace(/\/$/, '')}/api/v1/keys/subscribe`;
  const body = JSON.stringify({
    email: options.email,
    ...(options.projectName ? { projectName: options.projectName } : {}),
  });
  const headers = { 'content-type': 'application/json' };
  const post = (extra: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { ...headers, ...extra },
      body,
      signal: AbortSignal.timeout(options.requestTimeoutMs ?? 60_000),
    });
  const challenge = await post();
  if (challenge.status !== 402) {
    throw new PurchaseError('UNEXPECTED_ANSWER', `expected 402, got ${challenge.status}: ${await challenge.text()}`);
  }
  const required = client.getPaymentRequiredResponse((name) => challenge.headers.get(name));
  const offer = required.accepts.find((accept) => accept.network === network) ?? required.accepts[0];
  if (options.ledger && offer) {
    const price = BigInt(offer.amount);
    const held = await new TokenClient(options.ledger, offer.asset).balance(wallet.address);
    if (held < price) {
      throw new PurchaseError(
        'INSUFFICIENT_FUNDS',
        `the wallet holds ${held} base units of ${offer.asset}, the key costs ${price}`,
        { asset: offer.asset, held, price },
      );
    }
  }
  const payment = await client.createPaymentPayload(required);
  const signature = client.encodePaymentSignatureHeader(payment);
  let paid = await post(signature);
  for (let round = 0; paid.status === 202 && round < (options.settlingRounds ?? 10); round += 1) {
    const wait = Math.min(Number(paid.headers.get('retry-after') ?? '2') || 2, 30);
    await paid.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    paid = await post(signature);
  }
  if (paid.status === 202) throw new PurchaseError('STILL_SETTLING', 'the payment is still settling');
  if (paid.status !== 200) {
    throw new PurchaseError('PAYMENT_REFUSED', `payment refused (${paid.status}): ${await paid.text()}`);
  }
  const grant = (await paid.json()) as SubscriptionGrant;
  let txHash = '';
  try {
    txHash = client.getPaymentSettleResponse((name) => paid.headers.get(name)).transaction;
  } catch {
    // A grant collected after `settling` may come without the settlement header; the grant is what counts.
  }
  return { grant, txHash };
}
