import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SubscriptionGrant } from '@rp/contracts';
import { LedgerWallet } from '@rp/ledger';
import { DEMO_WALLETS, trustSandboxCertificate } from '@rp/sandbox';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { ExactStellarScheme as ExactStellarClient } from '@x402/stellar/exact/client';
import { WORKSPACE_ROOT } from './app-process';

export interface BuyKeyOptions {
  /** The gateway, e.g. `http://127.0.0.1:3000`. */
  gatewayUrl: string;
  mnemonic: string;
  email: string;
  projectName?: string;
  /** HTTPS Soroban RPC the x402 client builds the payment with (the sandbox's TLS port by default). */
  rpcUrl: string;
  network?: 'stellar:testnet' | 'stellar:pubnet';
}

export class PurchaseError extends Error {
  override readonly name = 'PurchaseError';
}

/**
 * Buys an API key the way any x402 client would: POST, read the `PAYMENT-REQUIRED` header, let the official
 * `@x402/core` client with `@x402/stellar`'s exact scheme build and sign the payment with the wallet, resend.
 */
export async function buyKey(options: BuyKeyOptions): Promise<{ grant: SubscriptionGrant; txHash: string }> {
  const wallet = LedgerWallet.fromMnemonic(options.mnemonic);
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
  const challenge = await fetch(url, { method: 'POST', headers, body });
  if (challenge.status !== 402)
    throw new PurchaseError(`expected 402, got ${challenge.status}: ${await challenge.text()}`);
  const required = client.getPaymentRequiredResponse((name) => challenge.headers.get(name));
  const payment = await client.createPaymentPayload(required);
  const paid = await fetch(url, {
    method: 'POST',
    headers: { ...headers, ...client.encodePaymentSignatureHeader(payment) },
    body,
  });
  if (paid.status !== 200) throw new PurchaseError(`payment refused (${paid.status}): ${await paid.text()}`);
  const settlement = client.getPaymentSettleResponse((name) => paid.headers.get(name));
  return { grant: (await paid.json()) as SubscriptionGrant, txHash: settlement.transaction };
}

/** The demo wallets by name (`healthy`, `endangered`), or the mnemonic itself. */
export function mnemonicFor(wallet: string): string {
  const demo = (DEMO_WALLETS as Record<string, { mnemonic: string } | undefined>)[wallet];
  return demo?.mnemonic ?? wallet;
}

/** Lets Node's HTTPS trust the sandbox's loopback certificate (the x402 client only speaks HTTPS). */
export function trustSandbox(): void {
  trustSandboxCertificate(readFileSync(join(WORKSPACE_ROOT, 'tools/sandbox/tls/loopback.crt'), 'utf8'));
}
