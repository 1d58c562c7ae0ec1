import { createHash, randomBytes } from 'node:crypto';
import type { AppProcess } from '@rp/dev';
import { LedgerRpc, type LedgerWallet, createExactPayment, encodeX402Header } from '@rp/ledger';
import { type LoadedScenario, type RunningSandbox, startSandbox } from '@rp/sandbox';
import { type Answer, BURSTY_GATEWAY, notificationsSettings } from './notifications-stack';
import { ADMIN_KEY, paidSubscriptionSettings } from './paid-stack';
import { startApp } from './running-apps';

export interface AccountsStackOptions {
  /** `DATABASE_URL` of the subscription service (in memory by default). */
  subscriptionDatabase?: string;
  /** `DATABASE_URL` of notifications (in memory by default; a file or a schema to restart it on its data). */
  notificationsDatabase?: string;
  /** Also run txb, on this Redis (a database of the test's own: proposals live under fixed keys). */
  txbRedis?: string;
}

/**
 * The sandbox (demo scenario: USDC, a sponsor) in this process; subscription (payments configured), notifications
 * (role `all`, delivering to the sandbox's stand-ins), optionally txb, and the gateway as real processes.
 */
export interface AccountsStack {
  sandbox: RunningSandbox;
  scenario: LoadedScenario;
  subscription: AppProcess;
  notifications: AppProcess;
  txb?: AppProcess;
  gateway: AppProcess;
  api: string;
  /** Buys a key over x402 through the gateway: the direct flow (`X-PAYMENT-SIGNATURE`) or the assisted one. */
  buy(wallet: LedgerWallet, email: string, flow: 'direct' | 'assisted'): Promise<string>;
  /** A partner key from the admin route, named `partner` or not. */
  partnerKey(email: string, partner?: string): Promise<{ apiKey: string; keyId: string; account: string }>;
  call(method: 'GET' | 'POST' | 'DELETE', path: string, options?: { key?: string; body?: unknown }): Promise<Answer>;
  /** Stops an app and starts it again with the same settings (on the same database). */
  restart(app: 'notifications' | 'txb'): Promise<void>;
  close(): Promise<void>;
}

export async function startAccountsStack(options: AccountsStackOptions = {}): Promise<AccountsStack> {
  const sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 250 });
  const scenario = sandbox.scenario;
  if (!scenario) throw new Error('the demo scenario did not load');
  const internalToken = randomBytes(24).toString('hex');
  const started: AppProcess[] = [];
  const stopAll = async () => {
    for (const app of started.reverse()) await app.stop();
    await sandbox.close();
  };
  try {
    const subscription = await startApp('subscription', {
      ...paidSubscriptionSettings(sandbox, scenario, internalToken),
      ...(options.subscriptionDatabase && { DATABASE_URL: options.subscriptionDatabase }),
    });
    started.push(subscription);
    const notifications = await startApp('notifications', {
      ...notificationsSettings(sandbox, internalToken),
      NOTIFICATIONS_ROLE: 'all',
      SUBSCRIPTION_URL: subscription.url,
      ...(options.notificationsDatabase && { DATABASE_URL: options.notificationsDatabase }),
    });
    started.push(notifications);
    let txb: AppProcess | undefined;
    if (options.txbRedis) {
      txb = await startApp('txb', {
        REDIS_URL: options.txbRedis,
        INTERNAL_TOKEN: internalToken,
        CONTRACT_RPC_URL: sandbox.rpcUrl,
        SUBSCRIPTION_URL: subscription.url,
      });
      started.push(txb);
    }
    const gateway = await startApp('gateway', {
      SUBSCRIPTION_URL: subscription.url,
      NOTIFICATIONS_URL: notifications.url,
      TXB_URL: txb?.url ?? 'http://127.0.0.1:1',
      INTERNAL_TOKEN: internalToken,
      KEY_CACHE_TTL_MS: '1000',
      ...BURSTY_GATEWAY,
    });
    started.push(gateway);
    const api = `${gateway.url}/api/v1`;
    const ledger = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' });

    const call: AccountsStack['call'] = async (method, path, { key, body } = {}) => {
      const answer = await fetch(`${api}${path}`, {
        method,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await answer.text();
      return { status: answer.status, body: text ? JSON.parse(text) : {} };
    };
    const granted = (answer: Answer): string => {
      if (answer.status !== 200) throw new Error(`purchase: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body.apiKey as string;
    };

    const stack: AccountsStack = {
      sandbox,
      scenario,
      subscription,
      notifications,
      txb,
      gateway,
      api,
      async buy(wallet, email, flow) {
        if (flow === 'direct') {
          const challenge = await fetch(`${api}/keys/subscribe`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ email }),
          });
          const required = JSON.parse(
            Buffer.from(challenge.headers.get('payment-required') ?? '', 'base64').toString(),
          );
          const payment = await createExactPayment({ ledger, payer: wallet, requirements: required.accepts[0] });
          const paid = await fetch(`${api}/keys/subscribe`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'X-PAYMENT-SIGNATURE': encodeX402Header(payment) },
            body: JSON.stringify({ email }),
          });
          return granted({ status: paid.status, body: await paid.json() });
        }
        const prepared = await call('POST', '/keys/subscribe/prepare', { body: { walletAddress: wallet.address } });
        const preimages = prepared.body.preimageXdrs as string[];
        return granted(
          await call('POST', '/keys/subscribe/complete', {
            body: {
              walletAddress: wallet.address,
              txJson: prepared.body.txJson,
              preimageXdrs: preimages,
              signedAuthEntries: preimages.map((preimage) =>
                wallet
                  .signHash(createHash('sha256').update(Buffer.from(preimage, 'base64')).digest())
                  .toString('base64'),
              ),
              maxLedger: prepared.body.maxLedger,
              email,
            },
          }),
        );
      },
      async partnerKey(email, partner) {
        const issued = await fetch(`${api}/keys/partners`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-admin-key': ADMIN_KEY },
          body: JSON.stringify({ email, rateLimit: 100_000, burst: 100_000, durationDays: 1, partner }),
        });
        if (issued.status !== 201) throw new Error(`partner key: ${issued.status} ${await issued.text()}`);
        return (await issued.json()) as { apiKey: string; keyId: string; account: string };
      },
      call,
      async restart(app) {
        const running = app === 'notifications' ? stack.notifications : stack.txb;
        if (!running) throw new Error(`${app} is not part of this stack`);
        await running.stop();
        const again = running.respawn();
        started[started.indexOf(running)] = again;
        await again.waitReady(60_000);
        if (app === 'notifications') stack.notifications = again;
        else stack.txb = again;
      },
      close: stopAll,
    };
    return stack;
  } catch (error) {
    await stopAll();
    throw error;
  }
}
