import { randomBytes, randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { CallerIdentity } from '@rp/contracts';
import { LedgerWallet } from '@rp/ledger';
import { createApp, initApp, loadConfig, signInternalRequest } from '@rp/platform';
import { DEMO_WALLETS, type RunningSandbox, startSandbox } from '@rp/sandbox';
import request from 'supertest';
import { NotificationsSettings } from '../src/settings/notifications-settings';
import { notificationsApp } from '../src/notifications.app';

export const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
export const ADMIN_KEY = 'admin-key-for-notification-tests';
export const WEBHOOK_SECRET = 'webhook-secret-for-notification-tests';
export const BOT_TOKEN = `424242:${'A'.repeat(35)}`;
const TOKEN = 'internal-token-for-notification-tests';
let wallets = 0;

type MessageLog = RunningSandbox['channels']['log'];
export type LogFilter = NonNullable<Parameters<MessageLog['list']>[0]>;
export type LogEntry = ReturnType<MessageLog['list']>[number];

export interface DeliveryHarness {
  sandbox: RunningSandbox;
  app: NestFastifyApplication;
  config: NotificationsSettings;
  /**
   * A caller the gateway would vouch for: a fresh key of `account` (a fresh partner account when omitted), with
   * `email` as its contact. The same email is never the same account.
   */
  caller(options?: { account?: string; email?: string | null }): CallerIdentity;
  call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    options?: { caller?: CallerIdentity; body?: unknown; headers?: Record<string, string> },
  ): Promise<request.Response>;
  /** A fresh ledger G-address. */
  wallet(): string;
  /** The sandbox's webhook receiver URL for a Discord (default) or Slack hook. */
  hookUrl(kind?: 'discord' | 'slack'): string;
  messages(filter: LogFilter): LogEntry[];
  /** Waits until `count` messages match, or gives up after `timeoutMs` (a safety bound, not a timing assertion). */
  waitForMessages(filter: LogFilter, count: number, timeoutMs?: number): Promise<LogEntry[]>;
  close(): Promise<void>;
}

/** The sandbox's channel stand-ins and the notifications app in this process, on the test Redis, under a key prefix of its own. */
export async function startDeliveryHarness(env: Record<string, string> = {}): Promise<DeliveryHarness> {
  const sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0, scenario: 'empty' });
  const port = new URL(sandbox.url).port;
  const config = loadConfig(NotificationsSettings, {
    REDIS_URL,
    DATABASE_URL: 'sqlite://memory',
    INTERNAL_TOKEN: TOKEN,
    LOG_LEVEL: 'silent',
    CONTRACT_RPC_URL: sandbox.rpcUrl,
    MESSENGER_API_URL: `${sandbox.url}/telegram`,
    MESSENGER_BOT_TOKEN: BOT_TOKEN,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(sandbox.smtpPort),
    EMAIL_FROM: 'alerts@example.com',
    NOTIFICATIONS_WEBHOOK_HOSTS: `127.0.0.1:${port}`,
    NOTIFICATIONS_KEY_PREFIX: `t${randomBytes(5).toString('hex')}`,
    RMS_ADMIN_API_KEY: ADMIN_KEY,
    RMS_WEBHOOK_SECRET: WEBHOOK_SECRET,
    ...env,
  });
  const app = await createApp(notificationsApp, config);
  await initApp(app);
  const harness: DeliveryHarness = {
    sandbox,
    app,
    config,
    caller: ({ account, email = null } = {}) => {
      const keyId = randomUUID();
      return {
        keyId,
        tier: 'standard',
        rateLimit: 1000,
        burst: 1000,
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
        email,
        account: account ?? `partner:key-${keyId}`,
      };
    },
    call(method, path, options = {}) {
      const requestId = randomUUID();
      const text =
        options.body === undefined
          ? undefined
          : typeof options.body === 'string'
            ? options.body
            : JSON.stringify(options.body);
      const signed = signInternalRequest({
        token: TOKEN,
        method,
        path,
        requestId,
        identity: options.caller,
        body: text,
      });
      const headers = { ...signed, 'x-request-id': requestId, ...options.headers };
      const server = request(app.getHttpServer());
      const calls = { GET: server.get, POST: server.post, PUT: server.put, DELETE: server.delete };
      const call = calls[method].call(server, path);
      return text === undefined
        ? call.set(headers)
        : call.set({ 'content-type': 'application/json', ...headers }).send(text);
    },
    wallet() {
      wallets += 1;
      return LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, {
        index: 700 + wallets + Math.floor(Math.random() * 100_000),
      }).address;
    },
    hookUrl(kind = 'discord') {
      const id = randomBytes(6).toString('hex');
      return kind === 'discord'
        ? `${sandbox.url}/hooks/discord/${BigInt('0x' + id)}/${id}tok`
        : `${sandbox.url}/hooks/slack/T${id}/B${id}/X${id}`;
    },
    messages: (filter) => sandbox.channels.log.list(filter),
    async waitForMessages(filter, count, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = sandbox.channels.log.list(filter);
        if (found.length >= count || Date.now() > until) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      await app.close();
      await sandbox.close();
    },
  };
  return harness;
}

/** An alert as the spec's table has it. */
export function alertFor(address: string, overrides: Record<string, unknown> = {}) {
  return {
    alertId: `alert-${randomUUID()}`,
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

/** A wallet with the three channels registered by one caller (minimum `low`), and where each sends. */
export async function registerThreeChannels(h: DeliveryHarness, chatId: string) {
  const caller = h.caller();
  const wallet = h.wallet();
  const hook = h.hookUrl();
  const email = `${chatId}@example.com`;
  const base = '/api/v1/rms/notifications';
  for (const [path, body] of [
    ['messenger', { walletAddress: wallet, messengerChatId: chatId, minRiskLevel: 'low' }],
    ['channelhook', { walletAddress: wallet, channelWebhook: hook, minRiskLevel: 'low' }],
    ['email', { walletAddress: wallet, email, minRiskLevel: 'low' }],
  ] as const) {
    const answer = await h.call('POST', `${base}/${path}`, { caller, body });
    if (answer.status !== 201) throw new Error(`${path} not registered: ${answer.status}`);
  }
  return { caller, wallet, chatId, hook, hookPath: new URL(hook).pathname.replace(/^\/hooks\//, ''), email };
}
