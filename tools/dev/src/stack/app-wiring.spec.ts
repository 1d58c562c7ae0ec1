import { APP_WIRING, ALL_APPS, START_ORDER, UNREACHABLE_URL, type WiringContext, wiredSettings } from './app-wiring';

const sandbox = {
  url: 'http://127.0.0.1:4100',
  secureUrl: 'https://127.0.0.1:4543',
  smtpPort: 2600,
  scenario: { pool: 'POOL', swapReceiver: 'SWAP', poolFactory: 'FACTORY', paymentReceiver: 'PAY', sponsorSecret: 'S' },
};
const context = (running: WiringContext['running']): WiringContext => ({ running, sandbox, adminKey: 'admin-key' });

describe('APP_WIRING', () => {
  it('points the gateway at the apps that run, and where nothing answers for the others', () => {
    expect(wiredSettings('gateway', context({ subscription: 'http://127.0.0.1:5001' }))).toEqual({
      SUBSCRIPTION_URL: 'http://127.0.0.1:5001',
      TXB_URL: UNREACHABLE_URL,
      NOTIFICATIONS_URL: UNREACHABLE_URL,
    });
  });

  it('gives txb and notifications the subscription service only when it runs (no fallback to a default port)', () => {
    expect(wiredSettings('txb', context({}))).not.toHaveProperty('SUBSCRIPTION_URL');
    expect(wiredSettings('notifications', context({ subscription: 'http://s' }))).toMatchObject({
      SUBSCRIPTION_URL: 'http://s',
    });
  });

  it('points every ledger reader at the sandbox RPC, the agent over HTTPS', () => {
    const rpc = Object.fromEntries(ALL_APPS.map((app) => [app, wiredSettings(app, context({}))['CONTRACT_RPC_URL']]));
    expect(rpc).toEqual({
      gateway: undefined,
      subscription: 'http://127.0.0.1:4100/rpc',
      txb: 'http://127.0.0.1:4100/rpc',
      notifications: 'http://127.0.0.1:4100/rpc',
      agent: 'https://127.0.0.1:4543/rpc',
    });
    expect(wiredSettings('txb', { running: {}, adminKey: 'k' })['CONTRACT_RPC_URL']).toBe('http://127.0.0.1:4000/rpc');
  });

  it("hands the demo scenario's addresses and the stand-ins to the apps that use them", () => {
    expect(wiredSettings('subscription', context({}))).toMatchObject({
      X402_PAYMENT_ADDRESS_LEDGER: 'PAY',
      X402_FACILITATOR_LEDGER_SECRET_KEY: 'S',
      RMS_ADMIN_API_KEY: 'admin-key',
    });
    expect(wiredSettings('notifications', context({}))).toMatchObject({
      RMS_POOLS: 'POOL',
      MESSENGER_API_URL: 'http://127.0.0.1:4100/telegram',
      SMTP_PORT: '2600',
      NOTIFICATIONS_WEBHOOK_HOSTS: '127.0.0.1:4100',
    });
    expect(wiredSettings('agent', context({ gateway: 'http://g' }))).toMatchObject({
      SERVICE_BASE_URL: 'http://g',
      WATCHED_POOLS: 'POOL',
      UNWIND_RECEIVER: 'SWAP',
      BLEND_POOL_FACTORY: 'FACTORY',
    });
  });

  it('starts every app after the apps it talks to', () => {
    for (const app of ALL_APPS) {
      for (const { to } of APP_WIRING[app].talksTo)
        expect(START_ORDER.indexOf(to)).toBeLessThan(START_ORDER.indexOf(app));
    }
  });
});
