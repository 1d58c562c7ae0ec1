import { join, resolve } from 'node:path';
import { WORKSPACE_ROOT } from './app-process';

export interface AppSlot {
  app: string;
  /** Environment variable that moves this app's port. */
  portVariable: string;
  defaultPort: number;
  /** What a person goes there for. */
  serves: string;
  database: boolean;
}

/** The five apps, in the order the banner lists them. */
export const APP_SLOTS: readonly AppSlot[] = [
  {
    app: 'gateway',
    portVariable: 'GATEWAY_PORT',
    defaultPort: 3000,
    serves: '/api/v1 (every public route)',
    database: false,
  },
  { app: 'subscription', portVariable: 'SUBSCRIPTION_PORT', defaultPort: 3001, serves: '/api/v1/keys', database: true },
  { app: 'txb', portVariable: 'TXB_PORT', defaultPort: 3002, serves: '/api/v1/txb', database: false },
  {
    app: 'notifications',
    portVariable: 'NOTIFICATIONS_PORT',
    defaultPort: 3003,
    serves: '/api/v1/rms',
    database: true,
  },
  { app: 'agent', portVariable: 'AGENT_PORT', defaultPort: 8080, serves: '/health (the risk agent)', database: true },
];

/**
 * The agent needs a wallet. Under the launcher it gets this one: the first SEP-5 test vector, public knowledge,
 * for demonstration only. Never fund it on a real network.
 */
export const DEMO_AGENT_MNEMONIC = 'illness spike retreat truth genius clock brain pass fit cave bargain toe';

export interface LaunchPlan {
  dataDir: string;
  readyTimeoutMs: number;
  apps: { slot: AppSlot; port: number; env: Record<string, string> }[];
}

function portOf(env: NodeJS.ProcessEnv, slot: AppSlot): number {
  const raw = env[slot.portVariable];
  if (raw === undefined || raw === '') return slot.defaultPort;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`${slot.portVariable} must be an integer between 1 and 65535 (got "${raw}")`);
  }
  return port;
}

/** Ports, data folders and settings of every app, from the launcher's environment and the Redis in use. */
export function planLaunch(env: NodeJS.ProcessEnv, redisUrl: string): LaunchPlan {
  const dataDir = resolve(WORKSPACE_ROOT, env['DEV_DATA_DIR'] || '.data');
  const readyTimeoutMs = Number(env['DEV_READY_TIMEOUT_MS'] || 90_000);
  const ports = Object.fromEntries(APP_SLOTS.map((slot) => [slot.app, portOf(env, slot)]));
  const local = (app: string) => `http://127.0.0.1:${ports[app]}`;
  const shared = { HOST: '127.0.0.1', REDIS_URL: redisUrl, NODE_ENV: 'development' };
  const specific: Record<string, Record<string, string>> = {
    gateway: {
      SUBSCRIPTION_URL: local('subscription'),
      TXB_URL: local('txb'),
      NOTIFICATIONS_URL: local('notifications'),
    },
    subscription: { X402_LEDGER_NETWORK: 'ledger:testnet' },
    txb: {},
    notifications: {},
    agent: {
      LEDGER_MNEMONIC: DEMO_AGENT_MNEMONIC,
      // The ledger stand-in's address (tools/sandbox); the agent reads nothing from it yet.
      CONTRACT_RPC_URL: 'http://127.0.0.1:4000/rpc',
      SERVICE_BASE_URL: local('gateway'),
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
        ...(slot.database ? { DATABASE_URL: `pglite://${join(dataDir, slot.app)}` } : {}),
        ...specific[slot.app],
      },
    })),
  };
}
