import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type ExactRequirements, LedgerRpc, LedgerWallet, type PaymentPayload, createExactPayment } from '@rp/ledger';
import { createApp, initApp, loadConfig } from '@rp/platform';
import { DEMO_WALLETS, type RunningSandbox, startSandbox } from '@rp/sandbox';
import { createHash } from 'node:crypto';
import { SubscriptionConfig } from '../config/subscription.config';
import type { Buyer, PaymentClaim } from '../payment/payment.service';
import { PaymentAnswers } from '../subscribe/payment-answers';
import { subscriptionApp } from '../subscription.app';

export const PRICE = 2_026_000n;
const MNEMONIC = DEMO_WALLETS.healthy.mnemonic;

/** The receiving address: a wallet of the test's, so a self-transfer can be signed. */
export const RECEIVER = LedgerWallet.fromMnemonic(MNEMONIC, { index: 700 });

/** The sandbox ledger in this process and the subscription service in-process in front of it. */
export interface PaymentSandbox {
  sandbox: RunningSandbox;
  ledger: LedgerRpc;
  /** Starts (and remembers, to close) a subscription app on this sandbox with these settings added. */
  startApp(env?: Record<string, string>): Promise<NestFastifyApplication>;
  requirements(app: NestFastifyApplication): ExactRequirements;
  /** A fresh wallet with 10 XLM and `usdc` base units of USDC. */
  wallet(usdc?: bigint): LedgerWallet;
  /** A signed direct-flow payment of `payer`, as the payment service receives it. */
  claim(
    app: NestFastifyApplication,
    payer: LedgerWallet,
    buyer: Buyer,
    options?: { expirationLedger?: number; requirements?: Partial<ExactRequirements> },
  ): Promise<PaymentClaim>;
  usdc(owner: string): bigint;
  xlm(owner: string): bigint;
  close(): Promise<void>;
}

let wallets = 0;

export async function startPaymentSandbox(options: { ledgerIntervalMs?: number } = {}): Promise<PaymentSandbox> {
  const sandbox = await startSandbox({
    port: 0,
    tlsPort: 0,
    smtpPort: 0,
    ledgerIntervalMs: options.ledgerIntervalMs ?? 250,
  });
  const scenario = sandbox.scenario;
  if (!scenario) throw new Error('the demo scenario did not load');
  sandbox.control.setup.fund(RECEIVER.address, 100_000_000n, 'receiver');
  const apps: NestFastifyApplication[] = [];
  const ledger = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' });
  const requirements = (app: NestFastifyApplication) => app.get(PaymentAnswers).requirements();
  return {
    sandbox,
    ledger,
    requirements,
    async startApp(env = {}) {
      const config = loadConfig(SubscriptionConfig, {
        DATABASE_URL: 'sqlite://memory',
        X402_PAYMENT_ADDRESS_LEDGER: RECEIVER.address,
        X402_FACILITATOR_LEDGER_SECRET_KEY: scenario.sponsor.secret,
        X402_LEDGER_NETWORK: 'ledger:testnet',
        CONTRACT_RPC_URL: sandbox.rpcUrl,
        LOG_LEVEL: 'silent',
        ...env,
      });
      const app = await createApp(subscriptionApp, config);
      await initApp(app);
      apps.push(app);
      return app;
    },
    wallet(usdc = PRICE) {
      wallets += 1;
      const wallet = LedgerWallet.fromMnemonic(MNEMONIC, { index: 300 + wallets });
      sandbox.control.setup.fund(wallet.address, 100_000_000n, `wallet ${wallets}`);
      if (usdc > 0n) sandbox.control.setup.mint(scenario.usdc, wallet.address, usdc);
      return wallet;
    },
    async claim(app, payer, buyer, options = {}) {
      const payload: PaymentPayload = await createExactPayment({
        ledger,
        payer,
        requirements: { ...requirements(app), ...options.requirements },
        expirationLedger: options.expirationLedger,
      });
      return {
        payload,
        buyer,
        flow: 'direct',
        // As the subscribe route computes it: what the buyer sent.
        digest: createHash('sha256').update(payload.payload.transaction).digest('hex'),
      };
    },
    usdc: (owner) => sandbox.control.setup.balance(scenario.usdc, owner),
    xlm: (owner) => sandbox.ledger.account(owner)?.balance ?? 0n,
    async close() {
      await Promise.all(apps.map((app) => app.close()));
      await sandbox.close();
    },
  };
}
