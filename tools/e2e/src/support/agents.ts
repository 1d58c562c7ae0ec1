import { randomBytes } from 'node:crypto';
import type { AppProcess, BorrowerPosition, Stack, StackOptions, StackWallet } from '@rp/dev';
import { TokenClient, findAccount, prepareInvocation, submitAndWait } from '@rp/ledger';
import { Networks, type Transaction, TransactionBuilder } from '@stellar/stellar-sdk';

export type AgentWallet = StackWallet;

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

export interface AgentStackOptions {
  redisDb: number;
  /** Start the notifications service too (the agent's risk route) behind the gateway. */
  notifications?: boolean;
  subscriptionEnv?: Record<string, string>;
  ledgerIntervalMs?: number;
}

/**
 * The kit's options for the agent suites: subscription (payments), txb, optionally notifications, and the gateway
 * the agents buy their keys from; agents are started per test (`agentCalls(stack).start`).
 */
export function agentStack(options: AgentStackOptions): StackOptions {
  return {
    apps: ['subscription', 'txb', 'gateway', ...(options.notifications ? (['notifications'] as const) : [])],
    roles: { notifications: ['all'] },
    redisDb: options.redisDb,
    ledgerIntervalMs: options.ledgerIntervalMs,
    env: {
      subscription: options.subscriptionEnv,
      notifications: {
        // The owner's channels (the agent's NOTIFY_* settings) deliver to the sandbox's stand-ins.
        MESSENGER_BOT_TOKEN: `424242:${'C'.repeat(35)}`,
        EMAIL_FROM: 'agent-owner@example.com',
      },
      gateway: { KEY_CACHE_TTL_MS: '1000' },
      agent: { POLL_INTERVAL_MS: '1000', LOCK_LEASE_MS: '3000' },
    },
  };
}

export interface AgentCalls {
  /** A new wallet: native XLM for fees, `xlm` collateral, `usdc` borrowed (kept: `keepUsdc`), `usdcForKey` minted. */
  borrower(options: Omit<BorrowerPosition, 'extraUsdc'> & { usdcForKey?: bigint }): AgentWallet;
  /** An agent process for the wallet; `env` adds to or overrides the stack's settings. */
  start(wallet: AgentWallet, env?: Record<string, string>): Promise<AppProcess>;
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
  /** The wallet's position in the demo pool, its health factor as a number. */
  position(wallet: string): Promise<{ collateral: number; liabilities: number; healthFactor: number | null }>;
}

let agents = 0;

/** Agents on a stack, and what the agent suites read of them. */
export function agentCalls(stack: Stack): AgentCalls {
  const { scenario, ledger } = stack;
  const calls: AgentCalls = {
    borrower: ({ usdcForKey, ...position }) =>
      stack.borrower({ ...position, extraUsdc: usdcForKey }, 'agent e2e wallet'),
    start(wallet, env = {}) {
      agents += 1;
      return stack.start('agent', {
        env: {
          LEDGER_MNEMONIC: wallet.mnemonic,
          SERVICE_EMAIL: `agent-${agents}-${randomBytes(3).toString('hex')}@example.com`,
          ...env,
        },
      });
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
        last = await calls.status(agent).catch(() => last);
        if (last && check(last)) return last;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error(
        `agent never reached: ${what}; last status ${JSON.stringify(last)}\n${agent.lines.slice(-15).join('\n')}`,
      );
    },
    async spendSequence(owner) {
      const account = await findAccount(ledger, owner.address);
      if (!account) throw new Error('no account');
      const latest = (await ledger.getLatestLedger()).sequence;
      const prepared = await prepareInvocation(ledger, {
        source: account,
        operation: new TokenClient(ledger, scenario.usdc).approveInvocation(
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
      const outcome = await submitAndWait(ledger, tx, { pollIntervalMs: 100 });
      if (outcome.status !== 'SUCCESS') throw new Error(`spendSequence: ${outcome.resultCode}`);
    },
    setXlmPrice(price) {
      stack.sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, price);
    },
    async position(wallet) {
      const { healthFactor, ...held } = await stack.position(wallet);
      return { ...held, healthFactor: healthFactor === null ? null : Number(healthFactor) / 1e7 };
    },
  };
  return calls;
}
