import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { APP_NODE_FLAGS, WORKSPACE_ROOT } from './app-process';
import { APP_WIRING, type AppName, type WiringContext, wiredSettings } from './stack/app-wiring';

export interface AppSlot {
  app: AppName;
  /** Environment variable that moves this app's port. */
  portVariable: string;
  defaultPort: number;
  /** What a person goes there for. */
  serves: string;
}

/** The five apps, in the order the banner lists them. */
export const APP_SLOTS: readonly AppSlot[] = [
  {
    app: 'gateway',
    portVariable: 'GATEWAY_PORT',
    defaultPort: 3000,
    serves: '/api/v1 (every public route)',
  },
  { app: 'subscription', portVariable: 'SUBSCRIPTION_PORT', defaultPort: 3001, serves: '/api/v1/keys' },
  { app: 'txb', portVariable: 'TXB_PORT', defaultPort: 3002, serves: '/api/v1/txb' },
  {
    app: 'notifications',
    portVariable: 'NOTIFICATIONS_PORT',
    defaultPort: 3003,
    serves: '/api/v1/rms',
  },
  { app: 'agent', portVariable: 'AGENT_PORT', defaultPort: 8080, serves: '/health (the risk agent)' },
];

/** The sandbox's ports (tools/sandbox), each movable by its variable. */
export const SANDBOX_PORTS = [
  { variable: 'SANDBOX_PORT', defaultPort: 4000, serves: 'page, control API, RPC, Telegram, webhooks' },
  { variable: 'SANDBOX_TLS_PORT', defaultPort: 4443, serves: 'the same over HTTPS (loopback certificate)' },
  { variable: 'SANDBOX_SMTP_PORT', defaultPort: 2525, serves: 'SMTP sink' },
] as const;

/** What the running sandbox tells the launcher (GET /control/scenario) and the apps are pointed at. */
export interface SandboxEndpoints {
  url: string;
  /** The same routes over HTTPS (the loopback certificate in tools/sandbox/tls). */
  secureUrl: string;
  smtpPort: number;
  pool: string;
  /** The flash-loan receiver UNWIND sells collateral through (the sandbox's swap receiver). */
  swapReceiver: string;
  /** The sandbox's Blend pool factory stand-in (`is_pool`), the agent's BLEND_POOL_FACTORY. */
  poolFactory: string;
  paymentReceiver: string;
  sponsorSecret: string;
  /**
   * The agent's wallet: the sandbox's endangered demo wallet, a SEP-5 test vector, public knowledge, for
   * demonstration only. Never fund it on a real network.
   */
  agentMnemonic: string;
}

export interface LaunchPlan {
  dataDir: string;
  readyTimeoutMs: number;
  apps: { slot: AppSlot; port: number; env: Record<string, string> }[];
}

export function portOf(env: NodeJS.ProcessEnv, variable: string, defaultPort: number): number {
  const raw = env[variable];
  if (raw === undefined || raw === '') return defaultPort;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`${variable} must be an integer between 1 and 65535 (got "${raw}")`);
  }
  return port;
}

/** Ports, data folders and settings of every app, from the launcher's environment, the Redis and the sandbox. */
/** Admin key of the partner-key routes under `npm start` (sandbox only; the banner shows it). */
export const DEV_ADMIN_KEY = 'dev-admin-key-sandbox-only';
/** Default bot of messenger deliveries under `npm start`: the sandbox's Telegram stand-in accepts any token of this shape. */
export const DEV_BOT_TOKEN = '100000001:sandbox-bot-token-0123456789abcdefXYZ';

export function planLaunch(env: NodeJS.ProcessEnv, redisUrl: string, sandbox?: SandboxEndpoints): LaunchPlan {
  const dataDir = resolve(WORKSPACE_ROOT, env['DEV_DATA_DIR'] || '.data');
  const readyTimeoutMs = Number(env['DEV_READY_TIMEOUT_MS'] || 90_000);
  const ports = Object.fromEntries(
    APP_SLOTS.map((slot) => [slot.app, portOf(env, slot.portVariable, slot.defaultPort)]),
  );
  const wiring: WiringContext = {
    running: Object.fromEntries(APP_SLOTS.map((slot) => [slot.app, `http://127.0.0.1:${ports[slot.app]}`])),
    sandbox: sandbox && {
      url: sandbox.url,
      secureUrl: sandbox.secureUrl,
      smtpPort: sandbox.smtpPort,
      scenario: sandbox,
    },
    adminKey: env['RMS_ADMIN_API_KEY'] || DEV_ADMIN_KEY,
  };
  // Services accept only calls the gateway signed with this token; a fresh one per launch unless given.
  const internalToken = env['INTERNAL_TOKEN'] || randomBytes(24).toString('hex');
  const shared = { HOST: '127.0.0.1', REDIS_URL: redisUrl, NODE_ENV: 'development', INTERNAL_TOKEN: internalToken };
  // The inbound alert webhook's secret: given, or fresh per launch (the banner shows it beside the admin key).
  const webhookSecret = env['RMS_WEBHOOK_SECRET'] || randomBytes(18).toString('hex');
  // What `npm start` adds to the wiring (APP_WIRING): the demo's own choices.
  const demo: Partial<Record<string, Record<string, string>>> = {
    txb: { ...(sandbox && { TXB_ALLOWED_RPC_URLS: `${sandbox.url}/rpc` }) },
    notifications: {
      NOTIFICATIONS_ROLE: 'all',
      RMS_WEBHOOK_SECRET: webhookSecret,
      ...(sandbox && {
        MESSENGER_BOT_TOKEN: env['MESSENGER_BOT_TOKEN'] || DEV_BOT_TOKEN,
        EMAIL_FROM: 'alerts@sandbox.local',
      }),
    },
    agent: {
      ...(sandbox && {
        LEDGER_MNEMONIC: sandbox.agentMnemonic,
        SERVICE_EMAIL: 'demo-agent@example.com',
        SERVICE_PROJECT_NAME: 'npm start demo agent',
        POLL_INTERVAL_MS: '2000',
        // Room for the page's -3 % button: the presigned close is sent as it is; bigger moves rebuild it.
        SLIPPAGE: '500',
        // The cooldown lives in Redis, which outlives a restart: a minute lets the demo be tried again soon.
        CLOSE_COOLDOWN_TTL: '60',
      }),
    },
  };
  return {
    dataDir,
    readyTimeoutMs,
    apps: APP_SLOTS.map((slot) => ({
      slot,
      port: ports[slot.app],
      env: {
        ...shared,
        ...(APP_WIRING[slot.app].database ? { DATABASE_URL: `sqlite://${join(dataDir, `${slot.app}.sqlite`)}` } : {}),
        ...wiredSettings(slot.app, wiring),
        ...demo[slot.app],
      },
    })),
  };
}

/**
 * Node flags for a process `npm start` runs (the sandbox and every app), on top of `APP_NODE_FLAGS`: a young
 * generation of 4 MB semi-spaces unless the app has its own (the agent's 2 MB). On Node 24, V8's young generation
 * took each process 20 to 35 MB above Node 20's under the same load: `npm start` went from 880 MB to 1,053 MB after
 * ready; with this cap it is back to about 900 MB (docs/benchmarks.md). A development stack needs no large young
 * generation; images, charts, tests and benches keep V8's default.
 */
export function launcherNodeFlags(app: string): string[] {
  const own = APP_NODE_FLAGS[app] ?? [];
  return own.some((flag) => flag.startsWith('--max-semi-space-size')) ? [] : ['--max-semi-space-size=4'];
}
