import { randomBytes } from 'node:crypto';
import type {
  BuildPreview,
  BuildResponse,
  BuiltTransaction,
  ErrorDetail,
  ProposalStatus,
  ProposalView,
  TxbWarning,
} from '@rp/contracts';
import { type AppProcess, openBorrower } from '@rp/dev';
import { BlendPoolReader, LedgerRpc, LedgerWallet, summarizePositions } from '@rp/ledger';
import { DEMO_WALLETS, type LoadedScenario, type RunningSandbox, startSandbox } from '@rp/sandbox';
import { Networks, TransactionBuilder } from '@stellar/stellar-sdk';
import { ADMIN_KEY } from './paid-stack';
import { REDIS_URL, startApp } from './running-apps';

/** The test Redis with a database of the suite's own (its trackers must not see another suite's proposals). */
export function redisDatabase(db: number): string {
  const url = new URL(REDIS_URL);
  url.pathname = `/${db}`;
  return url.toString();
}

/** Any answer of txb through the gateway, success or error envelope, with the fields a test reads. */
export interface TxbBody {
  success?: boolean;
  status?: number | string;
  code?: string;
  error?: string;
  details?: ErrorDetail[];
  transaction?: BuiltTransaction;
  proposal?: BuildResponse['proposal'];
  warnings?: TxbWarning[];
  preview?: BuildPreview;
  proposals?: ProposalView[];
  total?: number;
  txHash?: string;
  resultCode?: string;
  contractError?: { code: number; name?: string };
  operations?: number;
  service?: string;
  proposalsInMemory?: number;
}

export interface TxbAnswer {
  status: number;
  body: TxbBody;
}

export interface TxbStack {
  sandbox: RunningSandbox;
  scenario: LoadedScenario;
  subscription: AppProcess;
  txb: AppProcess[];
  gateway: AppProcess;
  /** The gateway's `/api/v1`. */
  api: string;
  internalToken: string;
  rpc: LedgerRpc;
  /** A partner key issued by the subscription service's admin route (limits high enough for a test). */
  apiKey(): Promise<{ apiKey: string; keyId: string }>;
  /** A call through the gateway with the key. */
  call(key: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<TxbAnswer>;
  /** A new SEP-5 wallet with XLM collateral and USDC debt in the demo pool; it keeps `keepUsdc` of what it borrowed. */
  borrower(options: { xlm: bigint; usdc: bigint; keepUsdc?: bigint; extraUsdc?: bigint }): LedgerWallet;
  /** Signs a built transaction with the wallet's own key (the wallet's side of the flow). */
  sign(wallet: LedgerWallet, transactionXdr: string): string;
  /** The proposal once it has one of `statuses` (polled through `api`; ledgers close on their own). */
  proposalIn(
    key: string,
    wallet: string,
    id: string,
    statuses: readonly ProposalStatus[],
    api?: string,
  ): Promise<ProposalView>;
  /** The wallet's position in the demo pool as the ledger has it now: raw amounts and health factor (7 decimals). */
  position(wallet: string): Promise<{ collateral: number; liabilities: number; healthFactor: bigint | null }>;
  usdc(owner: string): bigint;
  xlm(owner: string): bigint;
  close(): Promise<void>;
}

export interface TxbStackOptions {
  /** The suite's own Redis database for txb. */
  redisDb: number;
  /** How many txb processes (replicas sharing Redis); the gateway is pointed at the first. */
  replicas?: number;
  txbEnv?: Record<string, string>;
  gatewayEnv?: Record<string, string>;
  ledgerIntervalMs?: number;
}

let wallets = 0;

/** The sandbox in this process; subscription, txb and the gateway as real processes in front of it. */
export async function startTxbStack(options: TxbStackOptions): Promise<TxbStack> {
  const sandbox = await startSandbox({
    port: 0,
    tlsPort: 0,
    smtpPort: 0,
    ledgerIntervalMs: options.ledgerIntervalMs ?? 250,
  });
  const scenario = sandbox.scenario as LoadedScenario;
  const internalToken = randomBytes(24).toString('hex');
  const started: AppProcess[] = [];
  const stopAll = async () => {
    for (const app of started.reverse()) await app.stop();
    await sandbox.close();
  };
  try {
    const subscription = await startApp('subscription', {
      X402_LEDGER_NETWORK: 'ledger:testnet',
      CONTRACT_RPC_URL: sandbox.rpcUrl,
      RMS_ADMIN_API_KEY: ADMIN_KEY,
      INTERNAL_TOKEN: internalToken,
    });
    started.push(subscription);
    const txb: AppProcess[] = [];
    for (let i = 0; i < (options.replicas ?? 1); i += 1) {
      const replica = await startApp('txb', {
        CONTRACT_RPC_URL: sandbox.rpcUrl,
        TXB_UNWIND_RECEIVER: scenario.swapReceiver,
        REDIS_URL: redisDatabase(options.redisDb),
        INTERNAL_TOKEN: internalToken,
        ...options.txbEnv,
      });
      started.push(replica);
      txb.push(replica);
    }
    const gateway = await startApp('gateway', {
      SUBSCRIPTION_URL: subscription.url,
      TXB_URL: txb[0].url,
      INTERNAL_TOKEN: internalToken,
      ...options.gatewayEnv,
    });
    started.push(gateway);
    const api = `${gateway.url}/api/v1`;
    const rpc = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' });
    const reader = new BlendPoolReader({ ledger: rpc, simulator: rpc, networkPassphrase: Networks.TESTNET });
    const setup = sandbox.control.setup;
    const call = async (
      key: string,
      method: 'GET' | 'POST',
      path: string,
      body?: unknown,
      base = api,
    ): Promise<TxbAnswer> => {
      const answer = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await answer.text();
      return { status: answer.status, body: text ? (JSON.parse(text) as TxbBody) : {} };
    };
    return {
      sandbox,
      scenario,
      subscription,
      txb,
      gateway,
      api,
      internalToken,
      rpc,
      async apiKey() {
        const issued = await fetch(`${api}/keys/partners`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-admin-key': ADMIN_KEY },
          body: JSON.stringify({
            email: `txb-${randomBytes(4).toString('hex')}@example.com`,
            rateLimit: 100_000,
            burst: 100_000,
            durationDays: 1,
          }),
        });
        if (issued.status !== 201) throw new Error(`partner key: ${issued.status} ${await issued.text()}`);
        const body = (await issued.json()) as { apiKey: string; keyId: string };
        return { apiKey: body.apiKey, keyId: body.keyId };
      },
      call: (key, method, path, body) => call(key, method, path, body),
      borrower(position) {
        wallets += 1;
        const wallet = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, { index: 700 + wallets });
        openBorrower(sandbox, wallet.address, `txb e2e wallet ${wallets}`, position);
        return wallet;
      },
      sign(wallet, transactionXdr) {
        const tx = TransactionBuilder.fromXDR(transactionXdr, Networks.TESTNET);
        wallet.signTransaction(tx);
        return tx.toXDR();
      },
      async proposalIn(key, wallet, id, statuses, base = api) {
        for (let round = 0; round < 600; round += 1) {
          const listed = await call(key, 'GET', `/txb/proposals?wallet=${wallet}`, undefined, base);
          const found = listed.body.proposals?.find((p) => p.id === id);
          if (found && statuses.includes(found.status)) return found;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        throw new Error(`proposal ${id} did not reach ${statuses.join('/')}`);
      },
      async position(wallet) {
        const pool = await reader.loadPool(scenario.pool);
        const [prices, positions] = await Promise.all([
          reader.loadPrices(pool),
          reader.loadPositions(scenario.pool, [wallet]),
        ]);
        const held = positions.get(wallet) ?? { collateral: new Map(), liabilities: new Map(), supply: new Map() };
        const summary = summarizePositions(pool.reserves, prices, held);
        return {
          collateral: held.collateral.size,
          liabilities: held.liabilities.size,
          healthFactor: summary.healthFactor,
        };
      },
      usdc: (owner) => setup.balance(scenario.usdc, owner),
      xlm: (owner) => setup.balance(scenario.xlm, owner),
      close: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
