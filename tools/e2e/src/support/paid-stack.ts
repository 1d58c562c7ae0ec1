import { randomBytes } from 'node:crypto';
import { AppProcess } from '@rp/dev';
import { LedgerRpc, LedgerWallet } from '@rp/ledger';
import { type LoadedScenario, type RunningSandbox, startSandbox, trustSandboxCertificate } from '@rp/sandbox';
import { startApp } from './running-apps';

export const ADMIN_KEY = 'e2e-admin-key-0123456789';

export interface PaidStack {
  sandbox: RunningSandbox;
  scenario: LoadedScenario;
  /** The running subscription process (a new one after `crashSubscription`). */
  subscription: AppProcess;
  gateway: AppProcess;
  /** The gateway's `/api/v1`. */
  api: string;
  internalToken: string;
  ledger: LedgerRpc;
  /** USDC balance in base units. */
  usdc(owner: string): bigint;
  /** SIGKILLs the subscription service and starts it again on the same port with the same settings. */
  crashSubscription(whileDown?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export interface PaidStackOptions {
  /** Settings added to the subscription service's. */
  subscriptionEnv?: Record<string, string>;
  /** The sandbox's ledger close interval; 250 ms by default, 0 to close ledgers only on demand. */
  ledgerIntervalMs?: number;
}

/** A subscription service taking payments on the sandbox (its demo receiver and sponsor), signed calls only. */
export function paidSubscriptionSettings(
  sandbox: RunningSandbox,
  scenario: LoadedScenario,
  internalToken: string,
): Record<string, string> {
  return {
    X402_PAYMENT_ADDRESS_LEDGER: scenario.paymentReceiver,
    X402_FACILITATOR_LEDGER_SECRET_KEY: scenario.sponsor.secret,
    X402_LEDGER_NETWORK: 'ledger:testnet',
    CONTRACT_RPC_URL: sandbox.rpcUrl,
    RMS_ADMIN_API_KEY: ADMIN_KEY,
    INTERNAL_TOKEN: internalToken,
  };
}

/** The sandbox in this process, the subscription service and the gateway as real processes in front of it. */
export async function startPaidStack(options: PaidStackOptions = {}): Promise<PaidStack> {
  const sandbox = await startSandbox({
    port: 0,
    tlsPort: 0,
    smtpPort: 0,
    ledgerIntervalMs: options.ledgerIntervalMs ?? 250,
  });
  trustSandboxCertificate(sandbox.tlsCertificate);
  const scenario = sandbox.scenario;
  if (!scenario) throw new Error('the demo scenario did not load');
  const internalToken = randomBytes(24).toString('hex');
  let subscription: AppProcess | undefined;
  try {
    subscription = await startApp('subscription', {
      ...paidSubscriptionSettings(sandbox, scenario, internalToken),
      ...options.subscriptionEnv,
    });
    const gateway = await startApp('gateway', {
      SUBSCRIPTION_URL: subscription.url,
      INTERNAL_TOKEN: internalToken,
      KEY_CACHE_TTL_MS: '1000',
    });
    const ledger = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' });
    const stack: PaidStack = {
      sandbox,
      scenario,
      subscription,
      gateway,
      api: `${gateway.url}/api/v1`,
      internalToken,
      ledger,
      usdc: (owner) => sandbox.control.setup.balance(scenario.usdc, owner),
      crashSubscription: async (whileDown) => {
        await stack.subscription.kill();
        await whileDown?.();
        stack.subscription = stack.subscription.respawn();
        await stack.subscription.waitReady(60_000);
      },
      close: async () => {
        await gateway.stop();
        await stack.subscription.stop();
        await sandbox.close();
      },
    };
    return stack;
  } catch (error) {
    await subscription?.stop();
    await sandbox.close();
    throw error;
  }
}

let walletCounter = 0;

/** A fresh SEP-5 wallet (an unused index of `mnemonic`) funded with 10 XLM and `usdc` base units of USDC. */
export function freshWallet(
  stack: Pick<PaidStack, 'sandbox' | 'scenario'>,
  usdc: bigint,
  mnemonic: string,
): LedgerWallet {
  walletCounter += 1;
  const wallet = LedgerWallet.fromMnemonic(mnemonic, { index: 100 + walletCounter });
  stack.sandbox.control.setup.fund(wallet.address, 100_000_000n, `e2e wallet ${walletCounter}`);
  if (usdc > 0n) stack.sandbox.control.setup.mint(stack.scenario.usdc, wallet.address, usdc);
  return wallet;
}
