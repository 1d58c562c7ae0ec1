import { join } from 'node:path';
import { WORKSPACE_ROOT } from './app-process';
import { DEV_ADMIN_KEY, DEV_BOT_TOKEN, launcherNodeFlags, planLaunch } from './launch-plan';

describe('planLaunch', () => {
  const redis = 'redis://127.0.0.1:6379';

  it('puts the apps on their default ports with embedded databases under .data', () => {
    const plan = planLaunch({}, redis);
    expect(plan.apps.map(({ slot, port }) => [slot.app, port])).toEqual([
      ['gateway', 3000],
      ['subscription', 3001],
      ['txb', 3002],
      ['notifications', 3003],
      ['agent', 8080],
    ]);
    const env = Object.fromEntries(plan.apps.map(({ slot, env: appEnv }) => [slot.app, appEnv]));
    expect(env['subscription']['DATABASE_URL']).toBe(
      `sqlite://${join(WORKSPACE_ROOT, '.data', 'subscription.sqlite')}`,
    );
    expect(env['gateway']['DATABASE_URL']).toBeUndefined();
    expect(env['txb']['DATABASE_URL']).toBeUndefined();
    expect(env['agent']['LEDGER_MNEMONIC']).toBeUndefined();
    for (const appEnv of Object.values(env)) expect(appEnv).toMatchObject({ REDIS_URL: redis, HOST: '127.0.0.1' });
  });

  it('moves ports by setting and points the gateway and the agent at them', () => {
    const plan = planLaunch({ SUBSCRIPTION_PORT: '4101', GATEWAY_PORT: '4100', DEV_DATA_DIR: '/tmp/rp-data' }, redis);
    const env = Object.fromEntries(plan.apps.map(({ slot, env: appEnv }) => [slot.app, appEnv]));
    expect(env['gateway']['SUBSCRIPTION_URL']).toBe('http://127.0.0.1:4101');
    // Notifications and txb ask the subscription service about records made before accounts (ADR 015).
    expect(env['notifications']['SUBSCRIPTION_URL']).toBe('http://127.0.0.1:4101');
    expect(env['txb']['SUBSCRIPTION_URL']).toBe('http://127.0.0.1:4101');
    expect(env['agent']['SERVICE_BASE_URL']).toBe('http://127.0.0.1:4100');
    expect(plan.dataDir).toBe('/tmp/rp-data');
  });

  it('names the setting of a port that is not a port', () => {
    expect(() => planLaunch({ TXB_PORT: 'x' }, redis)).toThrow(
      'TXB_PORT must be an integer between 1 and 65535 (got "x")',
    );
  });

  it('points every app at the sandbox: ledger RPC, payment settings, watched pool, Telegram and SMTP', () => {
    const sandbox = {
      url: 'http://127.0.0.1:4000',
      secureUrl: 'https://127.0.0.1:4443',
      smtpPort: 2525,
      pool: 'CBGGLFY6E3J7E5GAUFJ4AKIV7ABBK2E7MDNERXI34D3POYY6DTJC4LMA',
      swapReceiver: 'CDLZFC3SYJYDZT7K67VZ75HPJVIEUVNIXF47ZG2FB2RMQQVU2HHGCYSC',
      poolFactory: 'CDV6RX4CGPCOKGTBFS52V3LMWQGZN3LCQTXF5RVPOOCG4XVMHXQ4NTF6',
      paymentReceiver: 'GAPMJUV2OZVYU6OOY3JDTYRXHA5NB2W6YAIHSWYBCPQJ7IJKIL63BS3M',
      sponsorSecret: 'SDEXY3XXMA73JSDZ2S5GBDZUZP2YLAVVQRXFA5WPFGKCNCDVJNZRE26N',
      agentMnemonic: 'illness spike retreat truth genius clock brain pass fit cave bargain toe',
    };
    const env = Object.fromEntries(
      planLaunch({}, redis, sandbox).apps.map(({ slot, env: appEnv }) => [slot.app, appEnv]),
    );
    for (const app of ['subscription', 'txb', 'notifications']) {
      expect(env[app]['CONTRACT_RPC_URL']).toBe('http://127.0.0.1:4000/rpc');
    }
    // The agent buys its key with the x402 client, which builds payments over HTTPS only.
    expect(env['agent']).toMatchObject({
      CONTRACT_RPC_URL: 'https://127.0.0.1:4443/rpc',
      WATCHED_POOLS: sandbox.pool,
      UNWIND_RECEIVER: sandbox.swapReceiver,
      BLEND_POOL_FACTORY: sandbox.poolFactory,
    });
    expect(env['agent']['NODE_EXTRA_CA_CERTS']).toMatch(/tools\/sandbox\/tls\/loopback\.crt$/);
    expect(env['subscription']).toMatchObject({
      X402_PAYMENT_ADDRESS_LEDGER: sandbox.paymentReceiver,
      X402_FACILITATOR_LEDGER_SECRET_KEY: sandbox.sponsorSecret,
      X402_LEDGER_NETWORK: 'ledger:testnet',
    });
    expect(env['agent']['LEDGER_MNEMONIC']).toBe(sandbox.agentMnemonic);
    expect(env['notifications']).toMatchObject({
      RMS_POOLS: sandbox.pool,
      MESSENGER_API_URL: 'http://127.0.0.1:4000/telegram',
      MESSENGER_BOT_TOKEN: DEV_BOT_TOKEN,
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: '2525',
      NOTIFICATIONS_WEBHOOK_HOSTS: '127.0.0.1:4000',
      NOTIFICATIONS_ROLE: 'all',
      RMS_ADMIN_API_KEY: DEV_ADMIN_KEY,
    });
    expect(env['notifications']['RMS_WEBHOOK_SECRET']).toMatch(/^[0-9a-f]{36}$/);
    expect(env['txb']).toMatchObject({
      TXB_UNWIND_RECEIVER: sandbox.swapReceiver,
      TXB_ALLOWED_RPC_URLS: 'http://127.0.0.1:4000/rpc',
    });
  });

  it('takes the webhook secret and admin key from the environment when given', () => {
    const plan = planLaunch(
      { RMS_WEBHOOK_SECRET: 'given-webhook-secret-123', RMS_ADMIN_API_KEY: 'given-admin-key-123456' },
      redis,
    );
    const notifications = plan.apps.find(({ slot }) => slot.app === 'notifications')?.env;
    expect(notifications).toMatchObject({
      RMS_WEBHOOK_SECRET: 'given-webhook-secret-123',
      RMS_ADMIN_API_KEY: 'given-admin-key-123456',
    });
  });
});

describe('launcherNodeFlags', () => {
  it('caps the young generation of the sandbox and the services, and keeps the agent on its own 2 MB', () => {
    for (const app of ['sandbox', 'gateway', 'subscription', 'txb', 'notifications']) {
      expect(launcherNodeFlags(app)).toEqual(['--max-semi-space-size=4']);
    }
    expect(launcherNodeFlags('agent')).toEqual([]);
  });
});
