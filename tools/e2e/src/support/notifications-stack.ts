import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { AppProcess } from '@rp/dev';
import { LedgerWallet } from '@rp/ledger';
import { DEMO_WALLETS, type RunningSandbox, startSandbox } from '@rp/sandbox';
import { ADMIN_KEY } from './paid-stack';
import { REDIS_URL, startApp } from './running-apps';

export const WEBHOOK_SECRET = 'e2e-webhook-secret-0123456789';
export const BOT_TOKEN = `555000:${'E'.repeat(35)}`;
export const NOTIFICATIONS = '/rms/notifications';

type MessageLog = RunningSandbox['channels']['log'];
export type LogFilter = NonNullable<Parameters<MessageLog['list']>[0]>;
export type LogEntry = ReturnType<MessageLog['list']>[number];

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface NotificationsStack {
  sandbox: RunningSandbox;
  subscription: AppProcess;
  /** The API process (`NOTIFICATIONS_ROLE=api`, or `all` when no separate workers were asked for). */
  notifications: AppProcess;
  /** Separate worker processes (`NOTIFICATIONS_ROLE=worker`). */
  workers: AppProcess[];
  gateway: AppProcess;
  api: string;
  /** Settings every notifications process of the stack got (to start another worker). */
  notificationsEnv: Record<string, string>;
  apiKey(email?: string): Promise<string>;
  /** A call through the gateway: with an API key, the admin key (`admin: true`) or the webhook secret. */
  call(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    options?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Answer>;
  /** Registers one channel (`messenger`, `channelhook`, `email`) with the key; throws unless 201. */
  register(key: string, channel: string, body: object): Promise<Answer>;
  webhook(body: unknown): Promise<Answer>;
  admin(method: 'GET' | 'POST', path: string): Promise<Answer>;
  wallet(): string;
  hookUrl(kind?: 'discord' | 'slack'): string;
  messages(filter: LogFilter): LogEntry[];
  waitForMessages(filter: LogFilter, count: number, timeoutMs?: number): Promise<LogEntry[]>;
  startWorker(): Promise<AppProcess>;
  close(): Promise<void>;
}

export interface NotificationsStackOptions {
  /** Worker processes beside an API-only process; 0 (default): one process in role `all`. */
  workers?: number;
  redisUrl?: string;
  /** `host:port`s that webhooks may also go to, besides the sandbox's receiver (a test's own receiver). */
  webhookHosts?: string[];
  env?: Record<string, string>;
}

/** The webhook and admin routes are limited per IP at the gateway; bursts from one test client need more. */
export const BURSTY_GATEWAY = { PUBLIC_RATE_LIMIT: '600000', PUBLIC_BURST: '100000' };

let wallets = 0;

/** What a notifications process needs to deliver to the sandbox's stand-ins (Telegram, webhooks, SMTP). */
export function notificationsSettings(
  sandbox: RunningSandbox,
  internalToken: string,
  redisUrl: string = REDIS_URL,
): Record<string, string> {
  return {
    REDIS_URL: redisUrl,
    INTERNAL_TOKEN: internalToken,
    CONTRACT_RPC_URL: sandbox.rpcUrl,
    MESSENGER_API_URL: `${sandbox.url}/telegram`,
    MESSENGER_BOT_TOKEN: BOT_TOKEN,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(sandbox.smtpPort),
    EMAIL_FROM: 'alerts@example.com',
    NOTIFICATIONS_WEBHOOK_HOSTS: new URL(sandbox.url).host,
    NOTIFICATIONS_KEY_PREFIX: `e2e${randomBytes(4).toString('hex')}`,
    RMS_ADMIN_API_KEY: ADMIN_KEY,
    RMS_WEBHOOK_SECRET: WEBHOOK_SECRET,
  };
}

/** The sandbox in this process; subscription, notifications (API and workers) and the gateway as real processes. */
export async function startNotificationsStack(options: NotificationsStackOptions = {}): Promise<NotificationsStack> {
  const sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0, scenario: 'empty' });
  const internalToken = randomBytes(24).toString('hex');
  const databaseFile = `/tmp/rp-notifications-e2e-${randomBytes(4).toString('hex')}.sqlite`;
  const started: AppProcess[] = [];
  const stopAll = async () => {
    for (const app of started.reverse()) await app.stop();
    await sandbox.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${databaseFile}${suffix}`, { force: true });
  };
  try {
    const subscription = await startApp('subscription', {
      X402_LEDGER_NETWORK: 'ledger:testnet',
      CONTRACT_RPC_URL: sandbox.rpcUrl,
      RMS_ADMIN_API_KEY: ADMIN_KEY,
      INTERNAL_TOKEN: internalToken,
    });
    started.push(subscription);
    const notificationsEnv: Record<string, string> = {
      ...notificationsSettings(sandbox, internalToken, options.redisUrl ?? REDIS_URL),
      NOTIFICATIONS_WEBHOOK_HOSTS: [new URL(sandbox.url).host, ...(options.webhookHosts ?? [])].join(','),
      // A file both roles share (the API writes configurations, workers read them).
      DATABASE_URL: `sqlite://${databaseFile}`,
      SUBSCRIPTION_URL: subscription.url,
      ...options.env,
    };
    const separate = (options.workers ?? 0) > 0;
    const notifications = await startApp('notifications', {
      ...notificationsEnv,
      NOTIFICATIONS_ROLE: separate ? 'api' : 'all',
    });
    started.push(notifications);
    const startWorker = async () => {
      const worker = await startApp('notifications', { ...notificationsEnv, NOTIFICATIONS_ROLE: 'worker' });
      started.push(worker);
      return worker;
    };
    const workers: AppProcess[] = [];
    for (let i = 0; i < (options.workers ?? 0); i += 1) workers.push(await startWorker());
    const gateway = await startApp('gateway', {
      SUBSCRIPTION_URL: subscription.url,
      TXB_URL: 'http://127.0.0.1:1',
      NOTIFICATIONS_URL: notifications.url,
      INTERNAL_TOKEN: internalToken,
      ...BURSTY_GATEWAY,
    });
    started.push(gateway);
    const api = `${gateway.url}/api/v1`;
    const call: NotificationsStack['call'] = async (method, path, { key, body, headers } = {}) => {
      const answer = await fetch(`${api}${path}`, {
        method,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await answer.text();
      let parsed: unknown = {};
      try {
        parsed = text ? JSON.parse(text) : {};
      } catch {
        parsed = { text };
      }
      return { status: answer.status, body: parsed };
    };
    return {
      sandbox,
      subscription,
      notifications,
      workers,
      gateway,
      api,
      notificationsEnv,
      async apiKey(email = `n-${randomBytes(4).toString('hex')}@example.com`) {
        const issued = await fetch(`${api}/keys/partners`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-admin-key': ADMIN_KEY },
          body: JSON.stringify({ email, rateLimit: 100_000, burst: 100_000, durationDays: 1 }),
        });
        if (issued.status !== 201) throw new Error(`partner key: ${issued.status} ${await issued.text()}`);
        return ((await issued.json()) as { apiKey: string }).apiKey;
      },
      call,
      async register(key, channel, body) {
        const answer = await call('POST', `${NOTIFICATIONS}/${channel}`, { key, body });
        if (answer.status !== 201)
          throw new Error(`register ${channel}: ${answer.status} ${JSON.stringify(answer.body)}`);
        return answer;
      },
      webhook: (body) =>
        call('POST', `${NOTIFICATIONS}/webhook`, { body, headers: { 'x-webhook-secret': WEBHOOK_SECRET } }),
      admin: (method, path) => call(method, `${NOTIFICATIONS}${path}`, { headers: { 'x-admin-key': ADMIN_KEY } }),
      wallet() {
        wallets += 1;
        return LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, {
          index: 3000 + wallets + Math.floor(Math.random() * 1_000_000),
        }).address;
      },
      hookUrl(kind = 'discord') {
        const id = randomBytes(6).toString('hex');
        return kind === 'discord'
          ? `${sandbox.url}/hooks/discord/${BigInt('0x' + id)}/${id}tok`
          : `${sandbox.url}/hooks/slack/T${id}/B${id}/X${id}`;
      },
      messages: (filter) => sandbox.channels.log.list(filter),
      async waitForMessages(filter, count, timeoutMs = 60_000) {
        const until = Date.now() + timeoutMs;
        for (;;) {
          const found = sandbox.channels.log.list(filter);
          if (found.length >= count || Date.now() > until) return found;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
      startWorker,
      close: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** An alert as the spec's table has it. */
export function alertFor(address: string, overrides: Record<string, unknown> = {}) {
  return {
    alertId: `alert-${randomBytes(8).toString('hex')}`,
    address,
    poolAddress: 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA',
    riskLevel: 'critical',
    healthFactor: 1.05,
    triggers: ['low_health_factor'],
    collateralValueUsd: 1234.5,
    liabilityValueUsd: 1100,
    recommendedAction: 'LIQUIDATE',
    evaluatedAt: new Date().toISOString(),
    ...overrides,
  };
}
