import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppProcess, WORKSPACE_ROOT, openBorrower } from '@rp/dev';
import {
  BlendPoolReader,
  LedgerRpc,
  LedgerWallet,
  TokenClient,
  findAccount,
  prepareInvocation,
  submitAndWait,
  summarizePositions,
} from '@rp/ledger';
import { type LoadedScenario, type RunningSandbox, startSandbox } from '@rp/sandbox';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { Networks, type Transaction, TransactionBuilder } from '@stellar/stellar-sdk';
import { ADMIN_KEY } from './paid-stack';
import { startApp } from './running-apps';
import { redisDatabase } from './txb-stack';

/** A wallet of its own (a fresh mnemonic: the agent derives m/44'/148'/0'), with a position in the demo pool. */
export interface AgentWallet {
  mnemonic: string;
  wallet: LedgerWallet;
  address: string;
}

export interface AgentStatus {
  wallet: { address: string; nativeBalance: string | null; lowFeeBalance: boolean };
  subscription: { active: boolean; tier: string | null; expiresAt: string | null; error?: string };
  positions: { poolAddress: string; healthFactor: number | null; riskLevel: string }[];
  recentCloses: {
    wallet: string;
    poolAddress: string;
    riskSnapshot: { positions: unknown[]; prices: Record<string, string>; ledger: number | null; source: string };
    txHash: string | null;
    outcome: string;
    error?: string;
    decidedAt: string;
    settledAt: string | null;
  }[];
  presigned: { entries: number; oldestAgeMs: number | null; validUntilLedger: number | null };
  /** Transactions the signing rule refused, newest first (the latest ten). */
  refusals: { at: string; source: 'service' | 'ledger'; reason: string }[];
  lastPollAt: string | null;
  mode: string;
  role: string;
}

export interface AgentStack {
  sandbox: RunningSandbox;
  scenario: LoadedScenario;
  gateway: AppProcess;
  /** The notifications service (risk route), when the stack was started with it. */
  notifications?: AppProcess;
  rpc: LedgerRpc;
  /** A new wallet: native XLM for fees, `xlm` collateral, `usdc` borrowed (kept: `keepUsdc`), `usdcForKey` minted. */
  borrower(options: { xlm: bigint; usdc: bigint; keepUsdc?: bigint; usdcForKey?: bigint }): AgentWallet;
  /** An agent process for the wallet; `env` adds to or overrides the stack's settings. */
  agent(wallet: AgentWallet, env?: Record<string, string>): Promise<AppProcess>;
  status(agent: AppProcess): Promise<AgentStatus>;
  metrics(agent: AppProcess): Promise<string>;
  /** Polls the agent's status until `check` holds. */
  until(
    agent: AppProcess,
    check: (status: AgentStatus) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<AgentStatus>;
  /** The wallet sends a transaction of its own (a harmless approval): its sequence number moves on. */
  spendSequence(owner: AgentWallet): Promise<void>;
  /** Sets the XLM oracle price (7 decimals). */
  setXlmPrice(price: bigint): void;
  position(wallet: string): Promise<{ collateral: number; liabilities: number; healthFactor: number | null }>;
  /** A database file the agents of one test share. */
  databaseUrl(): string;
  close(): Promise<void>;
}

export interface AgentStackOptions {
  redisDb: number;
  /** Start the notifications service too (the agent's risk route) behind the gateway. */
  notifications?: boolean;
  subscriptionEnv?: Record<string, string>;
  ledgerIntervalMs?: number;
}

let wallets = 0;

/** The sandbox in this process; subscription, txb and the gateway as real processes; agents added per test. */
export async function startAgentStack(options: AgentStackOptions): Promise<AgentStack> {
  const sandbox = await startSandbox({
    port: 0,
    tlsPort: 0,
    smtpPort: 0,
    ledgerIntervalMs: options.ledgerIntervalMs ?? 250,
  });
  const scenario = sandbox.scenario as LoadedScenario;
  const internalToken = randomBytes(24).toString('hex');
  const dataDir = mkdtempSync(join(tmpdir(), 'rp-agent-e2e-'));
  const started: AppProcess[] = [];
  const stopAll = async () => {
    for (const app of started.reverse()) await app.stop();
    await sandbox.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const subscription = await startApp('subscription', {
      X402_PAYMENT_ADDRESS_LEDGER: scenario.paymentReceiver,
      X402_FACILITATOR_LEDGER_SECRET_KEY: scenario.sponsor.secret,
      X402_LEDGER_NETWORK: 'ledger:testnet',
      CONTRACT_RPC_URL: sandbox.rpcUrl,
      RMS_ADMIN_API_KEY: ADMIN_KEY,
      INTERNAL_TOKEN: internalToken,
      ...options.subscriptionEnv,
    });
    started.push(subscription);
    const txb = await startApp('txb', {
      CONTRACT_RPC_URL: sandbox.rpcUrl,
      TXB_UNWIND_RECEIVER: scenario.swapReceiver,
      REDIS_URL: redisDatabase(options.redisDb),
      INTERNAL_TOKEN: internalToken,
    });
    started.push(txb);
    const notifications = options.notifications
      ? await startApp('notifications', {
          NOTIFICATIONS_ROLE: 'all',
          CONTRACT_RPC_URL: sandbox.rpcUrl,
          RMS_POOLS: scenario.pool,
          REDIS_URL: redisDatabase(options.redisDb),
          NOTIFICATIONS_KEY_PREFIX: `agent${randomBytes(4).toString('hex')}`,
          INTERNAL_TOKEN: internalToken,
          RMS_ADMIN_API_KEY: ADMIN_KEY,
          MESSENGER_API_URL: `${sandbox.url}/telegram`,
          // The owner's channels (the agent's NOTIFY_* settings) deliver to the sandbox's stand-ins.
          MESSENGER_BOT_TOKEN: `424242:${'C'.repeat(35)}`,
          SMTP_HOST: '127.0.0.1',
          SMTP_PORT: String(sandbox.smtpPort),
          EMAIL_FROM: 'agent-owner@example.com',
          NOTIFICATIONS_WEBHOOK_HOSTS: `127.0.0.1:${new URL(sandbox.url).port}`,
        })
      : undefined;
    if (notifications) started.push(notifications);
    const gateway = await startApp('gateway', {
      SUBSCRIPTION_URL: subscription.url,
      TXB_URL: txb.url,
      ...(notifications && { NOTIFICATIONS_URL: notifications.url }),
      INTERNAL_TOKEN: internalToken,
      KEY_CACHE_TTL_MS: '1000',
    });
    started.push(gateway);
    const rpc = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' });
    const reader = new BlendPoolReader({ ledger: rpc, simulator: rpc, networkPassphrase: Networks.TESTNET });
    const setup = sandbox.control.setup;
    let databases = 0;
    const stack: AgentStack = {
      sandbox,
      scenario,
      gateway,
      notifications,
      rpc,
      borrower({ usdcForKey, ...position }) {
        wallets += 1;
        const mnemonic = generateMnemonic(wordlist);
        const wallet = LedgerWallet.fromMnemonic(mnemonic);
        openBorrower(sandbox, wallet.address, `agent e2e wallet ${wallets}`, { ...position, extraUsdc: usdcForKey });
        return { mnemonic, wallet, address: wallet.address };
      },
      async agent(wallet, env = {}) {
        const agent = await startApp('agent', {
          LEDGER_MNEMONIC: wallet.mnemonic,
          // The x402 client builds the key's payment over HTTPS only: the sandbox's TLS port, its certificate trusted.
          CONTRACT_RPC_URL: sandbox.secureRpcUrl,
          NODE_EXTRA_CA_CERTS: join(WORKSPACE_ROOT, 'tools/sandbox/tls/loopback.crt'),
          SERVICE_BASE_URL: gateway.url,
          SERVICE_EMAIL: `agent-${wallets}-${randomBytes(3).toString('hex')}@example.com`,
          POLL_INTERVAL_MS: '1000',
          WATCHED_POOLS: scenario.pool,
          UNWIND_RECEIVER: scenario.swapReceiver,
          BLEND_POOL_FACTORY: scenario.poolFactory,
          LOCK_LEASE_MS: '3000',
          ...env,
        });
        started.push(agent);
        return agent;
      },
      async status(agent) {
        const answer = await fetch(`${agent.url}/status`);
        if (answer.status !== 200) throw new Error(`status: ${answer.status} ${await answer.text()}`);
        return (await answer.json()) as AgentStatus;
      },
      async metrics(agent) {
        return (await fetch(`${agent.url}/metrics`)).text();
      },
      async until(agent, check, what, timeoutMs = 60_000) {
        const deadline = Date.now() + timeoutMs;
        let last: AgentStatus | undefined;
        while (Date.now() < deadline) {
          last = await stack.status(agent).catch(() => last);
          if (last && check(last)) return last;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        throw new Error(
          `agent never reached: ${what}; last status ${JSON.stringify(last)}\n${agent.lines.slice(-15).join('\n')}`,
        );
      },
      async spendSequence(owner) {
        const account = await findAccount(rpc, owner.address);
        if (!account) throw new Error('no account');
        const latest = (await rpc.getLatestLedger()).sequence;
        const prepared = await prepareInvocation(rpc, {
          source: account,
          operation: new TokenClient(rpc, scenario.usdc).approveInvocation(
            owner.address,
            scenario.paymentReceiver,
            1n,
            latest + 100,
          ),
          validUntil: new Date(Date.now() + 60_000),
          network: 'ledger:testnet',
        });
        const tx = TransactionBuilder.fromXDR(prepared.transactionXdr, Networks.TESTNET) as Transaction;
        owner.wallet.signTransaction(tx);
        const outcome = await submitAndWait(rpc, tx, { pollIntervalMs: 100 });
        if (outcome.status !== 'SUCCESS') throw new Error(`spendSequence: ${outcome.resultCode}`);
      },
      setXlmPrice(price) {
        setup.setPrice(scenario.oracle, scenario.xlm, price);
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
          healthFactor: summary.healthFactor === null ? null : Number(summary.healthFactor) / 1e7,
        };
      },
      databaseUrl() {
        databases += 1;
        return `sqlite://${join(dataDir, `agent-${databases}.sqlite`)}`;
      },
      close: stopAll,
    };
    return stack;
  } catch (error) {
    await stopAll();
    throw error;
  }
}
