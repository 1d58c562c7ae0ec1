import { randomBytes } from 'node:crypto';
import { AppProcess } from '@rp/dev';
import { LedgerRpc, LedgerWallet } from '@rp/ledger';
import { type LoadedScenario, type RunningSandbox, startSandbox, trustSandboxCertificate } from '@rp/sandbox';
import { startApp } from './running-apps';

export const ADMIN_KEY = 'e2e-admin-key-0123456789';

export interface PaidStack {
  sandbox: RunningSandbox;
  scenario: LoadedScenario;
  subscription: AppProcess;
  gateway: AppProcess;
  /** The gateway's `/api/v1`. */
  api: string;
  internalToken: string;
  ledger: LedgerRpc;
  /** USDC balance in base units. */
  usdc(owner: string): bigint;
  close(): Promise<void>;
}

/** The sandbox in this process, the subscription service and the gateway as real processes in front of it. */
export async function startPaidStack(extraSubscriptionEnv: Record<string, string> = {}): Promise<PaidStack> {
  const sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 250 });
  trustSandboxCertificate(sandbox.tlsCertificate);
  const scenario = sandbox.scenario;
  if (!scenario) throw new Error('the demo scenario did not load');
  const internalToken = randomBytes(24).toString('hex');
  let subscription: AppProcess | undefined;
  try {
    subscription = await startApp('subscription', {
      X402_PAYMENT_ADDRESS_LEDGER: scenario.paymentReceiver,
      X402_FACILITATOR_LEDGER_SECRET_KEY: scenario.sponsor.secret,
      X402_LEDGER_NETWORK: 'ledger:testnet',
      CONTRACT_RPC_URL: sandbox.rpcUrl,
      RMS_ADMIN_API_KEY: ADMIN_KEY,
      INTERNAL_TOKEN: internalToken,
      ...extraSubscriptionEnv,
    });
    const gateway = await startApp('gateway', {
      SUBSCRIPTION_URL: subscription.url,
      INTERNAL_TOKEN: internalToken,
      KEY_CACHE_TTL_MS: '1000',
    });
    const ledger = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' });
    const started = subscription;
    return {
      sandbox,
      scenario,
      subscription,
      gateway,
      api: `${gateway.url}/api/v1`,
      internalToken,
      ledger,
      usdc: (owner) => sandbox.control.setup.balance(scenario.usdc, owner),
      close: async () => {
        await gateway.stop();
        await started.stop();
        await sandbox.close();
      },
    };
  } catch (error) {
    await subscription?.stop();
    await sandbox.close();
    throw error;
  }
}

let walletCounter = 0;

/** A fresh SEP-5 wallet (an unused index of `mnemonic`) funded with 10 XLM and `usdc` base units of USDC. */
export function freshWallet(stack: PaidStack, usdc: bigint, mnemonic: string): LedgerWallet {
  walletCounter += 1;
  const wallet = LedgerWallet.fromMnemonic(mnemonic, { index: 100 + walletCounter });
  stack.sandbox.control.setup.fund(wallet.address, 100_000_000n, `e2e wallet ${walletCounter}`);
  if (usdc > 0n) stack.sandbox.control.setup.mint(stack.scenario.usdc, wallet.address, usdc);
  return wallet;
}
