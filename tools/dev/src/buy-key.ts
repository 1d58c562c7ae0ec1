import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Answer, createRpClient, unwrap } from '@rp/client';
import type { SubscriptionGrant } from '@rp/contracts';
import { LedgerWallet, PurchaseError, purchaseKey, purchaseLimits } from '@rp/ledger';
import { DEMO_WALLETS, trustSandboxCertificate } from '@rp/sandbox';
import { WORKSPACE_ROOT } from './app-process';

export interface BuyKeyOptions {
  /** The gateway, e.g. `http://127.0.0.1:3000`. */
  gatewayUrl: string;
  mnemonic: string;
  email: string;
  projectName?: string;
  /** Soroban RPC the x402 client builds the payment with (the sandbox's TLS port by default). */
  rpcUrl: string;
  network?: 'stellar:testnet' | 'stellar:pubnet';
  /** The most the key may cost, decimal USD (`DEFAULT_MAX_PRICE_USD` when unset): a dearer 402 is refused unsigned. */
  maxPriceUsd?: string;
  /** When set, the only receiver paid. */
  payTo?: string;
}

export { PurchaseError };

/** Buys an API key for the wallet of `mnemonic` with the library's direct x402 flow (`purchaseKey`). */
export async function buyKey(options: BuyKeyOptions): Promise<{ grant: SubscriptionGrant; txHash: string }> {
  const { mnemonic, maxPriceUsd, payTo, ...rest } = options;
  const limits = purchaseLimits({ network: options.network ?? 'stellar:testnet', maxPriceUsd, payTo });
  return purchaseKey({ ...rest, limits, wallet: LedgerWallet.fromMnemonic(mnemonic) });
}

/** A key as the API describes it (`GET /api/v1/keys/me`, operation `getCurrentKey`). */
export type KeyDescription = Answer<'getCurrentKey'>;

/**
 * The bought key as the gateway sees it, asked with the key itself through `@rp/client`: proves the key is taken
 * and gives its terms (burst and account included, which the purchase's answer does not carry).
 */
export function describeKey(gatewayUrl: string, apiKey: string): Promise<KeyDescription> {
  return unwrap(createRpClient({ baseUrl: gatewayUrl, apiKey }).GET('/api/v1/keys/me'));
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
