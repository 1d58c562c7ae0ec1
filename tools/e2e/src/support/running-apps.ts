import { ALL_APPS, AppProcess, type AppName, freePort, whenReady } from '@rp/dev';

export { ALL_APPS, type AppName };

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
  return whenReady(new AppProcess({ app, port: await freePort(), env: { ...baseEnv(app), ...env } }));
}
