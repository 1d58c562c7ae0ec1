/**
 * Records made before accounts existed take the account of the key that made them when notifications and txb start
 * (ADR 015), asked of the real subscription service, on every database driver reachable (SQLite on a file always,
 * PostgreSQL with TEST_POSTGRES_URL, MongoDB with TEST_MONGO_URL). Keys are bought over x402 on the sandbox; the
 * old records are written in the shape they had; the apps are restarted on them; a second start changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { type Stack, startStack, withDatabase } from '@rp/dev';
import { DEMO_WALLETS } from '@rp/sandbox';
import { LedgerWallet } from '@rp/ledger';
import {
  type Collection,
  type StoredDocument,
  openDocumentStore,
  parseDatabaseUrl,
  testDatabases,
} from '@rp/persistence';
import { Redis } from 'ioredis';
import { accountsStack, buyKey } from './support/accounts';
import { NOTIFICATIONS, WEBHOOK_SECRET, alertFor } from './support/notification-channels';

const PRICE = 2_026_000n;
const TXB_REDIS = withDatabase(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379', 15);
const subscriptionDatabases = testDatabases('acc_sub', { sqlite: 'file' });
const notificationsDatabases = testDatabases('acc_ns', { sqlite: 'file' });
const drivers = subscriptionDatabases.databases.map((subscription, i) => ({
  name: subscription.name,
  subscription,
  notifications: notificationsDatabases.databases[i],
}));
process.stdout.write(
  `accounts migration drivers: ${drivers.map((d) => d.name).join(', ')}` +
    `${subscriptionDatabases.skipped.map((s) => ` (${s})`).join('')}\n`,
);

type Config = StoredDocument & Record<string, unknown>;
let walletIndex = 0;
const someWallet = () =>
  LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, { index: 5000 + ++walletIndex }).address;

describe.each(drivers)('records made before accounts, on $name', ({ subscription, notifications }) => {
  let stack: Stack;
  let redis: Redis;
  const configs = async <T>(work: (collection: Collection<Config>) => Promise<T>) => {
    const { store, collection } = await openConfigs(notifications.url);
    try {
      return await work(collection);
    } finally {
      await store.close();
    }
  };

  beforeAll(async () => {
    redis = new Redis(TXB_REDIS);
    await redis.flushdb();
    stack = await startStack(
      accountsStack({
        subscriptionDatabase: subscription.url,
        notificationsDatabase: notifications.url,
        txbRedis: TXB_REDIS,
      }),
    );
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await redis?.quit();
    await subscription.drop();
    await notifications.drop();
  });

  it('gives each its key’s account, parks what nothing proves, and changes nothing on a second start', async () => {
    const walletA = stack.wallet({ usdc: 2n * PRICE });
    const walletB = stack.wallet({ usdc: PRICE });
    const keyA = await buyKey(stack, walletA, 'shared@example.com', 'direct');
    const keyB = await buyKey(stack, walletB, 'shared@example.com', 'assisted');
    const keyA2 = await buyKey(stack, walletA, 'a-only@example.com', 'direct');
    const partner = await stack.api.partnerKey({ email: 'ops@partner.example' });
    const acme = await stack.api.partnerKey({ email: 'q@acme.example', partner: 'acme' });
    const keyIdOf = async (key: string) => (await stack.api.call('GET', '/keys/me', { key })).body.keyId as string;
    const keyIdA = await keyIdOf(keyA);

    const [shared, aOnly, partnered, nobodys, collided, proposed] = Array.from({ length: 6 }, someWallet);
    const chat = (n: number) => String(90_000_000 + n);
    const old = new Date(Date.now() - 86_400_000);
    // The newer registration of the account for `collided`, made through the API: it stays.
    expect(
      (
        await stack.api.call('POST', `${NOTIFICATIONS}/messenger`, {
          key: keyA,
          body: { walletAddress: collided, messengerChatId: chat(6) },
        })
      ).status,
    ).toBe(201);
    const legacy = {
      shared: messenger('email:shared@example.com', shared, chat(1), old),
      aOnly: messenger('email:a-only@example.com', aOnly, chat(2), old),
      partnered: emailChannel('email:ops@partner.example', partnered, 'ops@partner.example', old),
      acme: emailChannel(`key:${acme.keyId}`, partnered, 'q@acme.example', old),
      nobodys: messenger('email:nobody@example.com', nobodys, chat(5), old),
      collided: messenger('email:a-only@example.com', collided, chat(7), old),
    };
    await configs(async (collection) => {
      for (const record of Object.values(legacy)) await collection.insert(record);
    });
    const proposal = await seedProposal(redis, keyIdA, proposed);

    await stack.restart(stack.app('notifications'));
    await stack.restart(stack.app('txb'));
    const migrated = await until(async () => {
      const rows = await configs((collection) => collection.find({}));
      const owner = await redis.hget(`txb:proposal:${proposal}`, 'accountId');
      const done = rows.every((row) => !/^(email|key):/.test(String(row['accountId']))) && owner?.includes(':');
      return done ? rows : undefined;
    });
    const ownerOf = (id: string) => migrated.find((row) => row.id === id)?.['accountId'];

    // Proven: the one account behind the email, or the key's own account.
    expect(ownerOf(legacy.aOnly.id)).toBe(`wallet:${walletA.address}`);
    expect(ownerOf(legacy.partnered.id)).toBe(partner.account);
    expect(ownerOf(legacy.acme.id)).toBe('partner:acme');
    // Not proven (an email two wallets paid with; an email no key has): parked under no account.
    expect(ownerOf(legacy.shared.id)).toBe('unproven:email:shared@example.com');
    expect(ownerOf(legacy.nobodys.id)).toBe('unproven:email:nobody@example.com');
    // Two records of one account for one wallet's channel: the newer one (the API's) stays.
    expect(ownerOf(legacy.collided.id)).toBeUndefined();

    const get = (key: string, wallet: string) =>
      stack.api.call('GET', `${NOTIFICATIONS}?walletAddress=${wallet}`, { key });
    expect((await get(keyA2, aOnly)).body).toMatchObject({ messengerChatId: chat(2) });
    expect((await get(keyB, aOnly)).status).toBe(404);
    expect((await get(keyA, shared)).status).toBe(404);
    expect((await get(keyB, shared)).status).toBe(404);
    expect((await get(partner.apiKey, partnered)).body).toMatchObject({ email: 'ops@partner.example' });
    expect((await get(acme.apiKey, partnered)).body).toMatchObject({ email: 'q@acme.example' });
    expect((await get(keyA2, collided)).body).toMatchObject({ messengerChatId: chat(6) });

    // The parked record keeps warning whoever it warned: an alert for the wallet reaches its chat.
    const alert = await fetch(`${stack.api.url}${NOTIFICATIONS}/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-secret': WEBHOOK_SECRET },
      body: JSON.stringify({ source: 'e2e', alert: alertFor(shared), routing: { channels: ['messenger'] } }),
    });
    expect(alert.status).toBe(202);
    await until(async () => stack.sandbox.channels.log.list({ channel: 'telegram', destination: chat(1) })[0]);

    // The proposal A's first key built is its account's: A's other key lists it, B's does not.
    const proposals = (key: string) => stack.api.call('GET', `/txb/proposals?wallet=${proposed}`, { key });
    expect((await proposals(keyA2)).body.proposals.map((p: { id: string }) => p.id)).toEqual([proposal]);
    expect((await proposals(keyB)).body.proposals).toEqual([]);

    // A second start changes nothing of what is migrated (one new old record proves the migration ran to its end).
    const marker = messenger(`key:${keyIdA}`, someWallet(), chat(8), old);
    await configs((collection) => collection.insert(marker));
    const markerProposal = await seedProposal(redis, keyIdA, someWallet());
    const proposalBefore = await redis.hgetall(`txb:proposal:${proposal}`);
    await stack.restart(stack.app('notifications'));
    await stack.restart(stack.app('txb'));
    const after = await until(async () => {
      const rows = await configs((collection) => collection.find({}));
      const owner = await redis.hget(`txb:proposal:${markerProposal}`, 'accountId');
      const done = rows.find((row) => row.id === marker.id)?.['accountId'] === `wallet:${walletA.address}`;
      return done && owner === `wallet:${walletA.address}` ? rows : undefined;
    });
    const byId = (rows: Config[]) => [...rows].sort((x, y) => x.id.localeCompare(y.id));
    expect(byId(after.filter((row) => row.id !== marker.id))).toEqual(byId(migrated));
    expect(await redis.hgetall(`txb:proposal:${proposal}`)).toEqual(proposalBefore);
  }, 240_000);
});

async function openConfigs(url: string) {
  const store = await openDocumentStore(parseDatabaseUrl(url, 'notifications'));
  // The collection as notifications defines it (configs/notification-config.repository.ts).
  const collection = await store.collection<Config>({
    name: 'notification_channels',
    unique: [{ name: 'notification_channels_wallet', fields: ['walletAddress', 'accountId', 'channel'] }],
  });
  return { store, collection };
}

/** A messenger configuration as registered before accounts: owned by `email:<...>` or `key:<keyId>`. */
function messenger(accountId: string, walletAddress: string, chatId: string, at: Date): Config {
  const base = { enabled: true, minRiskLevel: 'high', createdAt: at, updatedAt: at };
  return { id: randomUUID(), accountId, walletAddress, channel: 'messenger', chatId, ...base };
}

function emailChannel(accountId: string, walletAddress: string, email: string, at: Date): Config {
  const base = { enabled: true, minRiskLevel: 'high', createdAt: at, updatedAt: at };
  return { id: randomUUID(), accountId, walletAddress, channel: 'email', email, ...base };
}

/** A confirmed proposal as txb stored it before accounts: owned by the bare key id that built it. */
async function seedProposal(redis: Redis, keyId: string, wallet: string): Promise<string> {
  const id = `txp-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const now = Date.now();
  const keep = 3_600_000;
  await redis
    .multi()
    .hset(`txb:proposal:${id}`, {
      id,
      accountId: keyId,
      walletAddress: wallet,
      action: 'REPAY',
      status: 'confirmed',
      createdAt: String(now),
      expiresAt: String(now + 300_000),
      updatedAt: String(now),
      hash: 'ab'.repeat(32),
      txHash: 'ab'.repeat(32),
      transaction: JSON.stringify({ transactionXdr: 'AAAA', sourceAddress: wallet, operations: 1, createdAt: '' }),
      metadata: JSON.stringify({ poolAddress: 'CPOOL', tokenId: 'CTOKEN', action: 'REPAY' }),
    })
    .pexpire(`txb:proposal:${id}`, keep)
    .zadd(`txb:owner:${keyId}:${wallet}`, now, id)
    .pexpire(`txb:owner:${keyId}:${wallet}`, keep)
    .exec();
  return id;
}

/** Polls `read` until it returns something, within a generous bound (the apps migrate in the background). */
async function until<T>(read: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('the apps did not get there in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
