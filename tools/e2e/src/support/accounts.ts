import { createHash } from 'node:crypto';
import type { ApiAnswer, Stack, StackOptions, StackWallet } from '@rp/dev';
import { createExactPayment, encodeX402Header } from '@rp/ledger';
import { BURSTY_GATEWAY, NOTIFICATIONS_TEST_SETTINGS } from './notification-channels';

export interface AccountsStackOptions {
  /** `DATABASE_URL` of the subscription service (in memory by default). */
  subscriptionDatabase?: string;
  /** `DATABASE_URL` of notifications (in memory by default; a file or a schema to restart it on its data). */
  notificationsDatabase?: string;
  /** Also run txb, on this Redis (a database of the test's own: proposals live under fixed keys). */
  txbRedis?: string;
}

/**
 * The kit's options for the accounts suites: subscription (payments on the sandbox's demo scenario), notifications
 * (role `all`, delivering to the sandbox's stand-ins), optionally txb, and the gateway.
 */
export function accountsStack(options: AccountsStackOptions = {}): StackOptions {
  return {
    apps: ['subscription', 'notifications', 'gateway', ...(options.txbRedis ? (['txb'] as const) : [])],
    roles: { notifications: ['all'] },
    env: {
      subscription: { ...(options.subscriptionDatabase && { DATABASE_URL: options.subscriptionDatabase }) },
      notifications: {
        ...NOTIFICATIONS_TEST_SETTINGS,
        ...(options.notificationsDatabase && { DATABASE_URL: options.notificationsDatabase }),
      },
      ...(options.txbRedis && { txb: { REDIS_URL: options.txbRedis } }),
      gateway: { KEY_CACHE_TTL_MS: '1000', ...BURSTY_GATEWAY },
    },
  };
}

const granted = (answer: ApiAnswer): string => {
  if (answer.status !== 200) throw new Error(`purchase: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.apiKey as string;
};

/** Buys a key over x402 through the stack's gateway: the direct flow (`X-PAYMENT-SIGNATURE`) or the assisted one. */
export async function buyKey(
  stack: Stack,
  { wallet }: StackWallet,
  email: string,
  flow: 'direct' | 'assisted',
): Promise<string> {
  const { api } = stack;
  if (flow === 'direct') {
    const challenge = await fetch(`${api.url}/keys/subscribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    const required = JSON.parse(Buffer.from(challenge.headers.get('payment-required') ?? '', 'base64').toString());
    const payment = await createExactPayment({
      ledger: stack.ledger,
      payer: wallet,
      requirements: required.accepts[0],
    });
    const paid = await fetch(`${api.url}/keys/subscribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-PAYMENT-SIGNATURE': encodeX402Header(payment) },
      body: JSON.stringify({ email }),
    });
    return granted({ status: paid.status, body: await paid.json() });
  }
  const prepared = await api.call('POST', '/keys/subscribe/prepare', { body: { walletAddress: wallet.address } });
  const preimages = prepared.body.preimageXdrs as string[];
  return granted(
    await api.call('POST', '/keys/subscribe/complete', {
      body: {
        walletAddress: wallet.address,
        txJson: prepared.body.txJson,
        preimageXdrs: preimages,
        signedAuthEntries: preimages.map((preimage) =>
          wallet.signHash(createHash('sha256').update(Buffer.from(preimage, 'base64')).digest()).toString('base64'),
        ),
        maxLedger: prepared.body.maxLedger,
        email,
      },
    }),
  );
}
