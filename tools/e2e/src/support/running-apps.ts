import { AppProcess, freePort } from '@rp/dev';

export const ALL_APPS = ['gateway', 'subscription', 'txb', 'notifications', 'agent'] as const;
export type AppName = (typeof ALL_APPS)[number];

export const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
export const DEMO_MNEMONIC = 'illness spike retreat truth genius clock brain pass fit cave bargain toe';

/** What each app needs to boot on loopback: in-memory SQLite, the test Redis, required settings. */
export function baseEnv(app: AppName): Record<string, string> {
  const env: Record<string, string> = { HOST: '127.0.0.1', REDIS_URL, NODE_ENV: 'test' };
  if (app === 'subscription' || app === 'notifications' || app === 'agent') env['DATABASE_URL'] = 'sqlite://memory';
  if (app === 'agent') {
    env['LEDGER_MNEMONIC'] = DEMO_MNEMONIC;
    env['CONTRACT_RPC_URL'] = 'http://127.0.0.1:1/rpc';
  }
  return env;
}

/** Starts an app from source on a free port and waits for `/health/ready`. */
export async function startApp(app: AppName, env: Record<string, string> = {}): Promise<AppProcess> {
  const process = new AppProcess({ app, port: await freePort(), env: { ...baseEnv(app), ...env } });
  try {
    await process.waitReady(60_000);
  } catch (error) {
    await process.stop();
    throw new Error(`${(error as Error).message}\n${process.lines.slice(-20).join('\n')}`);
  }
  return process;
}
