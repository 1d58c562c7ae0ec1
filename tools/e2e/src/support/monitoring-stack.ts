import { randomBytes } from 'node:crypto';
import type { AppProcess } from '@rp/dev';
import { LedgerWallet } from '@rp/ledger';
import { DEMO_WALLETS, type LoadedScenario, type RunningSandbox, UNIT, startSandbox } from '@rp/sandbox';
import { ADMIN_KEY } from './paid-stack';
import { privateRedis } from './private-redis';
import { startApp } from './running-apps';

export const MONITOR_BOT_TOKEN = `556000:${'M'.repeat(35)}`;

export interface JsonAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface MonitoringStack {
  sandbox: RunningSandbox;
  scenario: LoadedScenario;
  /** notifications in role `all`: API, monitor scheduler, batch and delivery workers. */
  notifications: AppProcess;
  gateway: AppProcess;
  api: string;
  ledgerIntervalMs: number;
  apiKey(): Promise<string>;
  /** Through the gateway; `key` as a bearer API key, or extra headers (the admin key). */
  call(
    method: 'GET' | 'POST',
    path: string,
    options?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<JsonAnswer>;
  /** A fresh SEP-5 wallet with `xlm` collateral and `usdc` debt (base units) in the demo pool. */
  borrower(xlm: bigint, usdc: bigint): string;
  /** The sandbox's Discord webhook receiver URL for a new hook, and the path the stand-in logs it under. */
  hook(): { url: string; path: string };
  close(): Promise<void>;
}

let borrowers = 0;

/**
 * The sandbox (demo scenario, a ledger every `ledgerIntervalMs`) in this process; subscription, notifications
 * (every role, watching the demo pool) and the gateway as real processes.
 */
export async function startMonitoringStack(ledgerIntervalMs: number): Promise<MonitoringStack> {
  // A Redis of its own: rate limits, queues and cooldowns of suites running beside it do not meet it.
  const redis = await privateRedis();
  const REDIS_URL = redis.url;
  const sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs });
  const scenario = sandbox.scenario as LoadedScenario;
  const internalToken = randomBytes(24).toString('hex');
  const started: AppProcess[] = [];
  const stopAll = async () => {
    for (const app of started.reverse()) await app.stop();
    await sandbox.close();
    await redis.kill();
  };
  try {
    const subscription = await startApp('subscription', {
      REDIS_URL,
      X402_LEDGER_NETWORK: 'ledger:testnet',
      CONTRACT_RPC_URL: sandbox.rpcUrl,
      RMS_ADMIN_API_KEY: ADMIN_KEY,
      INTERNAL_TOKEN: internalToken,
    });
    started.push(subscription);
    const notifications = await startApp('notifications', {
      REDIS_URL,
      INTERNAL_TOKEN: internalToken,
      NOTIFICATIONS_ROLE: 'all',
      CONTRACT_RPC_URL: sandbox.rpcUrl,
      RMS_POOLS: scenario.pool,
      RMS_LEDGER_POLL_MS: '100',
      RMS_ADMIN_API_KEY: ADMIN_KEY,
      MESSENGER_API_URL: `${sandbox.url}/telegram`,
      MESSENGER_BOT_TOKEN: MONITOR_BOT_TOKEN,
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(sandbox.smtpPort),
      EMAIL_FROM: 'alerts@example.com',
      NOTIFICATIONS_WEBHOOK_HOSTS: new URL(sandbox.url).host,
      NOTIFICATIONS_KEY_PREFIX: `mon${randomBytes(4).toString('hex')}`,
    });
    started.push(notifications);
    const gateway = await startApp('gateway', {
      REDIS_URL,
      SUBSCRIPTION_URL: subscription.url,
      TXB_URL: 'http://127.0.0.1:1',
      NOTIFICATIONS_URL: notifications.url,
      INTERNAL_TOKEN: internalToken,
    });
    started.push(gateway);
    const api = `${gateway.url}/api/v1`;
    const call: MonitoringStack['call'] = async (method, path, { key, body, headers } = {}) => {
      const answer = await fetch(`${api}${path}`, {
        method,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await answer.text();
      return { status: answer.status, body: text ? JSON.parse(text) : {} };
    };
    return {
      sandbox,
      scenario,
      notifications,
      gateway,
      api,
      ledgerIntervalMs,
      async apiKey() {
        const issued = await call('POST', '/keys/partners', {
          headers: { 'x-admin-key': ADMIN_KEY },
          body: {
            email: `mon-${randomBytes(4).toString('hex')}@example.com`,
            rateLimit: 100_000,
            burst: 100_000,
            durationDays: 1,
          },
        });
        if (issued.status !== 201) throw new Error(`partner key: ${issued.status} ${JSON.stringify(issued.body)}`);
        return issued.body.apiKey as string;
      },
      call,
      borrower(xlm, usdc) {
        borrowers += 1;
        const index = 5000 + borrowers + Math.floor(Math.random() * 1_000_000);
        const wallet = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, { index }).address;
        sandbox.control.setup.fund(wallet, 100n * UNIT, `monitoring e2e wallet ${borrowers}`);
        sandbox.control.setup.openPosition(scenario.pool, {
          user: wallet,
          supplyCollateral: [{ asset: scenario.xlm, amount: xlm }],
          borrow: [{ asset: scenario.usdc, amount: usdc }],
        });
        return wallet;
      },
      hook() {
        const id = randomBytes(6).toString('hex');
        const path = `discord/${BigInt('0x' + id)}/${id}tok`;
        return { url: `${sandbox.url}/hooks/${path}`, path };
      },
      close: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
