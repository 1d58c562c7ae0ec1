import { randomBytes } from 'node:crypto';
import { type ApiAnswer, type CallOptions, type Stack, type StackOptions } from '@rp/dev';
import type { RunningSandbox } from '@rp/sandbox';
import { Keypair } from '@stellar/stellar-sdk';

export const WEBHOOK_SECRET = 'e2e-webhook-secret-0123456789';
export const BOT_TOKEN = `555000:${'E'.repeat(35)}`;
export const NOTIFICATIONS = '/rms/notifications';

type MessageLog = RunningSandbox['channels']['log'];
export type LogFilter = NonNullable<Parameters<MessageLog['list']>[0]>;
export type LogEntry = ReturnType<MessageLog['list']>[number];
export type Answer = ApiAnswer;

/** The webhook and admin routes are limited per IP at the gateway; bursts from one test client need more. */
export const BURSTY_GATEWAY = { PUBLIC_RATE_LIMIT: '600000', PUBLIC_BURST: '100000' };

/** What a notifications process of an e2e stack is told beyond the wiring: the test bot, sender and secret. */
export const NOTIFICATIONS_TEST_SETTINGS = {
  MESSENGER_BOT_TOKEN: BOT_TOKEN,
  EMAIL_FROM: 'alerts@example.com',
  RMS_WEBHOOK_SECRET: WEBHOOK_SECRET,
};

export interface NotificationsStackOptions {
  /** Worker processes beside an API-only process; 0 (default): one process in role `all`. */
  workers?: number;
  /** A Redis of the test's own for the notifications processes (the other apps keep the shared one). */
  redisUrl?: string;
  /** `host:port`s that webhooks may also go to, besides the sandbox's receiver (a test's own receiver). */
  webhookHosts?: string[];
  env?: Record<string, string>;
}

/**
 * The kit's options for subscription, notifications (an API process and workers sharing one database file, or one
 * process in role `all`) and the gateway, on the sandbox's empty scenario with no ledger closing.
 */
export function notificationsStack(options: NotificationsStackOptions = {}): StackOptions {
  const workers = options.workers ?? 0;
  const extraHosts = options.webhookHosts ?? [];
  return {
    apps: ['subscription', 'notifications', 'gateway'],
    roles: { notifications: workers > 0 ? ['api', ...Array.from({ length: workers }, () => 'worker')] : ['all'] },
    scenario: 'empty',
    ledgerIntervalMs: 0,
    files: ['notifications'],
    env: {
      notifications: (wired) => ({
        ...NOTIFICATIONS_TEST_SETTINGS,
        NOTIFICATIONS_WEBHOOK_HOSTS: [wired['NOTIFICATIONS_WEBHOOK_HOSTS'], ...extraHosts].join(','),
        ...(options.redisUrl && { REDIS_URL: options.redisUrl }),
        ...options.env,
      }),
      gateway: BURSTY_GATEWAY,
    },
  };
}

/** The notification routes of a stack, as the notifications suites use them. */
export interface NotificationsCalls {
  stack: Stack;
  apiKey(email?: string): Promise<string>;
  call(method: 'GET' | 'POST' | 'DELETE', path: string, options?: CallOptions): Promise<Answer>;
  /** Registers one channel (`messenger`, `channelhook`, `email`) with the key; throws unless 201. */
  register(key: string, channel: string, body: object): Promise<Answer>;
  webhook(body: unknown): Promise<Answer>;
  admin(method: 'GET' | 'POST', path: string): Promise<Answer>;
  /** A fresh ledger address (no account on the ledger: the alerts name it, nothing reads it). */
  wallet(): string;
  /** A new Discord (or Slack) webhook URL on the sandbox's receiver. */
  hookUrl(kind?: 'discord' | 'slack'): string;
  messages(filter: LogFilter): LogEntry[];
  waitForMessages(filter: LogFilter, count: number, timeoutMs?: number): Promise<LogEntry[]>;
}

export function notificationsCalls(stack: Stack): NotificationsCalls {
  const { sandbox, api } = stack;
  return {
    stack,
    async apiKey(email = `n-${randomBytes(4).toString('hex')}@example.com`) {
      return (await api.partnerKey({ email })).apiKey;
    },
    call: (method, path, options) => api.call(method, path, options),
    async register(key, channel, body) {
      const answer = await api.call('POST', `${NOTIFICATIONS}/${channel}`, { key, body });
      if (answer.status !== 201)
        throw new Error(`register ${channel}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer;
    },
    webhook: (body) =>
      api.call('POST', `${NOTIFICATIONS}/webhook`, { body, headers: { 'x-webhook-secret': WEBHOOK_SECRET } }),
    admin: (method, path) =>
      api.call(method, `${NOTIFICATIONS}${path}`, { headers: { 'x-admin-key': stack.adminKey } }),
    wallet: () => Keypair.random().publicKey(),
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
  };
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
