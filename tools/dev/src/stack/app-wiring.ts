import { join } from 'node:path';
import { WORKSPACE_ROOT } from '../app-process';

/**
 * The wiring of the system, in one place: which app talks to which (and through which setting), which apps read
 * the ledger, and what each app is told about the sandbox's stand-ins. The launcher (`npm start`), the kit the e2e
 * suites and benchmarks start stacks with (`startStack`), and nothing else, turn it into settings.
 */
export const ALL_APPS = ['gateway', 'subscription', 'txb', 'notifications', 'agent'] as const;
export type AppName = (typeof ALL_APPS)[number];

/** The order processes start in: an app after the apps it talks to. */
export const START_ORDER: readonly AppName[] = ['subscription', 'txb', 'notifications', 'gateway', 'agent'];

/** The sandbox as the apps see it: its URLs and what its scenario holds (absent: the empty scenario). */
export interface WiredSandbox {
  /** Page, control API, RPC, Telegram and webhook stand-ins over HTTP. */
  url: string;
  /** The same routes over HTTPS (the loopback certificate in tools/sandbox/tls). */
  secureUrl: string;
  smtpPort: number;
  scenario?: {
    pool: string;
    /** The flash-loan receiver UNWIND sells collateral through. */
    swapReceiver: string;
    /** The Blend pool factory stand-in (`is_pool`). */
    poolFactory: string;
    paymentReceiver: string;
    sponsorSecret: string;
  };
}

export interface WiringContext {
  /** Base URLs of the apps this stack runs (an app that is not running is absent). */
  running: Partial<Record<AppName, string>>;
  sandbox?: WiredSandbox;
  /** Key of the admin routes (partner keys, DLQ, re-drive). */
  adminKey: string;
}

export interface AppLink {
  /** The setting that holds the other app's base URL. */
  variable: string;
  to: AppName;
  /**
   * Without the other app the setting points where nothing answers (the gateway's routes answer 502), instead of
   * falling back to the app's default port where a developer's `npm start` may be listening.
   */
  unreachableWhenAbsent?: boolean;
}

export interface AppWiring {
  /** Keeps a database (`DATABASE_URL`). */
  database: boolean;
  talksTo: readonly AppLink[];
  /** Reads or writes the ledger (`CONTRACT_RPC_URL`); `secure`: over HTTPS only (the agent's x402 client). */
  ledger?: 'plain' | 'secure';
  /** The setting that names a process's role, when the app runs in roles. */
  roleVariable?: string;
  /** What the app needs beyond its links and its ledger. */
  settings(context: WiringContext): Record<string, string>;
}

/** Where nothing listens: a link to an app the stack does not run. */
export const UNREACHABLE_URL = 'http://127.0.0.1:1';

export const APP_WIRING: Readonly<Record<AppName, AppWiring>> = {
  gateway: {
    database: false,
    talksTo: [
      { variable: 'SUBSCRIPTION_URL', to: 'subscription', unreachableWhenAbsent: true },
      { variable: 'TXB_URL', to: 'txb', unreachableWhenAbsent: true },
      { variable: 'NOTIFICATIONS_URL', to: 'notifications', unreachableWhenAbsent: true },
    ],
    settings: () => ({}),
  },
  subscription: {
    database: true,
    talksTo: [],
    ledger: 'plain',
    settings: ({ sandbox, adminKey }) => ({
      X402_LEDGER_NETWORK: 'ledger:testnet',
      RMS_ADMIN_API_KEY: adminKey,
      ...(sandbox?.scenario && {
        X402_PAYMENT_ADDRESS_LEDGER: sandbox.scenario.paymentReceiver,
        X402_FACILITATOR_LEDGER_SECRET_KEY: sandbox.scenario.sponsorSecret,
      }),
    }),
  },
  txb: {
    database: false,
    // Asked once at start about proposals built before accounts existed (ADR 015).
    talksTo: [{ variable: 'SUBSCRIPTION_URL', to: 'subscription' }],
    ledger: 'plain',
    settings: ({ sandbox }) => ({ ...(sandbox?.scenario && { TXB_UNWIND_RECEIVER: sandbox.scenario.swapReceiver }) }),
  },
  notifications: {
    database: true,
    // Asked once at start about configurations registered before accounts existed (ADR 015).
    talksTo: [{ variable: 'SUBSCRIPTION_URL', to: 'subscription' }],
    ledger: 'plain',
    roleVariable: 'NOTIFICATIONS_ROLE',
    settings: ({ sandbox, adminKey }) => ({
      RMS_ADMIN_API_KEY: adminKey,
      ...(sandbox && {
        ...(sandbox.scenario && { RMS_POOLS: sandbox.scenario.pool }),
        MESSENGER_API_URL: `${sandbox.url}/telegram`,
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String(sandbox.smtpPort),
        // The sandbox's Discord/Slack receivers (`/hooks/...`) are the only webhook host besides Discord and Slack.
        NOTIFICATIONS_WEBHOOK_HOSTS: new URL(sandbox.url).host,
      }),
    }),
  },
  agent: {
    database: true,
    talksTo: [{ variable: 'SERVICE_BASE_URL', to: 'gateway' }],
    // The x402 client that buys the agent's key speaks HTTPS only: the sandbox's TLS port, its certificate trusted.
    ledger: 'secure',
    settings: ({ sandbox }) => ({
      ...(sandbox && { NODE_EXTRA_CA_CERTS: join(WORKSPACE_ROOT, 'tools/sandbox/tls/loopback.crt') }),
      ...(sandbox?.scenario && {
        WATCHED_POOLS: sandbox.scenario.pool,
        UNWIND_RECEIVER: sandbox.scenario.swapReceiver,
        BLEND_POOL_FACTORY: sandbox.scenario.poolFactory,
      }),
    }),
  },
};

/** The ledger RPC an app is pointed at: the sandbox's, over HTTPS where the app needs it. */
export function rpcUrlFor(app: AppName, sandbox: WiredSandbox | undefined): string {
  if (!sandbox) return 'http://127.0.0.1:4000/rpc';
  return APP_WIRING[app].ledger === 'secure' ? `${sandbox.secureUrl}/rpc` : `${sandbox.url}/rpc`;
}

/** The settings the wiring gives `app`: its links to the running apps, its ledger, its sandbox stand-ins. */
export function wiredSettings(app: AppName, context: WiringContext): Record<string, string> {
  const wiring = APP_WIRING[app];
  const links: Record<string, string> = {};
  for (const link of wiring.talksTo) {
    const url = context.running[link.to] ?? (link.unreachableWhenAbsent ? UNREACHABLE_URL : undefined);
    if (url) links[link.variable] = url;
  }
  return {
    ...links,
    ...(wiring.ledger && { CONTRACT_RPC_URL: rpcUrlFor(app, context.sandbox) }),
    ...wiring.settings(context),
  };
}
