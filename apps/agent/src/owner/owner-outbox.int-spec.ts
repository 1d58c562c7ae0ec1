/**
 * The owner's events from the agent's outbox to the owner's channels, for real: the agent's database, the gateway,
 * the subscription service (keys) and the notifications service as processes, the sandbox's Telegram, webhook and
 * SMTP stand-ins as the owner's channels. Without a key, or with the service down, events wait in the database;
 * once they can go they are delivered, each once (also when an answer was lost and the event is sent again).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_WALLETS } from '@rp/sandbox';
import { LedgerWallet } from '@rp/ledger';
import pino from 'pino';
import {
  type LedgerSandbox,
  type ServiceProcess,
  eventually,
  freePort,
  notificationsEnv,
  partnerKey,
  startLedgerSandbox,
  startServiceProcess,
  startSubscription,
} from '../../test/service-processes.int-support';
import { AgentMetrics } from '../metrics/agent-metrics';
import { type AgentStore, openAgentStore } from '../store/agent-store';
import { OwnerNotifications } from './owner-notifications';
import { OwnerOutbox, bodyOf } from './owner-outbox';
import { OwnerEventSender } from './owner-sender';

const POOL = 'CBGGLFY6E3J7E5GAUFJ4AKIV7ABBK2E7MDNERXI34D3POYY6DTJC4LMA';
const TX = 'b'.repeat(64);
let wallets = 0;

describe("the owner's events", () => {
  let ledger: LedgerSandbox;
  let subscription: ServiceProcess;
  let notifications: ServiceProcess;
  let gateway: ServiceProcess;
  let dataDir: string;
  let notificationsPort: number;
  let notificationsSettings: Record<string, string>;
  const stores: AgentStore[] = [];
  const token = randomBytes(24).toString('hex');

  const startNotifications = async () =>
    (notifications = await startServiceProcess('notifications', notificationsSettings, notificationsPort));

  beforeAll(async () => {
    ledger = await startLedgerSandbox();
    dataDir = mkdtempSync(join(tmpdir(), 'rp-owner-events-'));
    notificationsPort = await freePort();
    // On a file, so that the service stopped and started again keeps the owner's channels.
    notificationsSettings = {
      ...notificationsEnv(ledger, `sqlite://${join(dataDir, 'notifications.sqlite')}`),
      INTERNAL_TOKEN: token,
    };
    subscription = await startSubscription(ledger, { INTERNAL_TOKEN: token });
    await startNotifications();
    gateway = await startServiceProcess('gateway', {
      SUBSCRIPTION_URL: subscription.url,
      NOTIFICATIONS_URL: notifications.url,
      INTERNAL_TOKEN: token,
      REDIS_URL: notificationsSettings['REDIS_URL'],
      KEY_CACHE_TTL_MS: '1000',
    });
  }, 180_000);

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  afterAll(async () => {
    for (const app of [gateway, notifications, subscription]) await app?.stop();
    await ledger?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const close = (txHash = TX) =>
    ({ type: 'close_confirmed', poolAddress: POOL, healthFactorBefore: 1.03, healthFactorAfter: null, txHash }) as const;

  /** An agent's outbox and sender for a fresh wallet whose owner set the three channels; its key given later. */
  async function agentFor() {
    wallets += 1;
    const wallet = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, { index: 3000 + wallets }).address;
    const store = await openAgentStore('sqlite://memory');
    stores.push(store);
    const logger = pino({ level: 'silent' });
    const chatId = String(8_000_000 + wallets + Math.floor(Math.random() * 100_000));
    const hookId = randomBytes(6).toString('hex');
    const channels = {
      telegramChatId: chatId,
      email: `owner-${chatId}@example.com`,
      webhookUrl: `${ledger.sandbox.url}/hooks/discord/${BigInt(`0x${hookId}`)}/${hookId}tok`,
    };
    const service = new OwnerNotifications(gateway.url, wallet, channels);
    let apiKey: string | undefined;
    const outbox = new OwnerOutbox(store, wallet, logger);
    const sender = new OwnerEventSender(outbox, { apiKey: () => apiKey }, service, logger, new AgentMetrics(), 1000);
    const destinations = [
      { channel: 'telegram', destination: chatId },
      { channel: 'webhook', destination: `discord/${BigInt(`0x${hookId}`)}/${hookId}tok` },
      { channel: 'email', destination: channels.email },
    ] as const;
    // Delivered messages only: a stand-in may refuse a send first (429 when sends come faster than its pace).
    const received = (text: string) =>
      destinations.map(
        (filter) =>
          ledger.sandbox.channels.log.list({ ...filter, outcome: 'delivered' }).filter((m) => m.text.includes(text)).length,
      );
    const waitFor = (text: string) =>
      eventually(
        () =>
          destinations.every((filter) =>
            ledger.sandbox.channels.log.list({ ...filter, outcome: 'delivered' }).some((m) => m.text.includes(text)),
          ) || undefined,
        `"${text}" on the three channels`,
      );
    return {
      wallet,
      store,
      outbox,
      sender,
      service,
      useKey: async () => (apiKey = await partnerKey(gateway.url, `owner-${chatId}@example.com`)),
      key: () => apiKey,
      events: () => store.ownerEvents.find({ wallet }, { sort: { field: 'createdAtMs', direction: 'asc' } }),
      /**
       * Each of `ids` reached each channel exactly once: once they have arrived, a marker event sent after them
       * arrives after them (one lane per destination), and then each is counted.
       */
      async deliveredOnce(ids: string[], markerHash: string) {
        for (const id of ids) await waitFor(id);
        await outbox.emit(close(markerHash));
        await sender.deliver();
        await waitFor(markerHash);
        for (const id of ids) expect(received(id)).toEqual([1, 1, 1]);
      },
    };
  }

  it('without a key the events wait; with one, the channels are registered and each event is delivered once', async () => {
    const agent = await agentFor();
    await agent.outbox.emit(close());
    await agent.outbox.emit({ type: 'fee_balance_low', nativeBalance: '3.2000000' });
    await agent.sender.deliver();
    expect((await agent.events()).map((event) => event.state)).toEqual(['pending', 'pending']);

    await agent.useKey();
    await agent.sender.deliver();
    const events = await agent.events();
    expect(events.map((event) => event.state)).toEqual(['delivered', 'delivered']);
    // The owner's channels are the wallet's configurations under the agent's own account.
    const config = await fetch(`${gateway.url}/api/v1/rms/notifications?walletAddress=${agent.wallet}`, {
      headers: { authorization: `Bearer ${agent.key()}` },
    });
    expect(((await config.json()) as { enabledChannels: string[] }).enabledChannels.sort()).toEqual([
      'channelhook',
      'email',
      'messenger',
    ]);
    await agent.deliveredOnce(events.map((event) => event.id), 'c'.repeat(64));
  }, 90_000);

  it('with the service down the events are kept; once it is back they go out, each once, a lost answer included', async () => {
    const agent = await agentFor();
    await agent.useKey();
    await agent.sender.deliver(); // registers the channels
    await notifications.stop();
    await agent.outbox.emit(close());
    await agent.outbox.emit({ type: 'subscription_lapsed', reason: 'expired', detail: 'the API key expired' });
    await agent.sender.deliver();
    let kept = await agent.events();
    expect(kept.map((event) => event.state)).toEqual(['pending', 'pending']);
    expect(kept[0]).toMatchObject({ attempts: 1, lastError: expect.stringMatching(/^5\d\d/) });

    await startNotifications();
    // The first one reached the service from a process that died before it recorded the answer: sent again below.
    expect((await agent.service.send(agent.key() ?? '', bodyOf(kept[0]))).kind).toBe('taken');
    await eventually(async () => {
      await agent.sender.deliver();
      const states = (await agent.events()).map((event) => event.state);
      return states.every((state) => state === 'delivered') || undefined;
    }, 'both events delivered once the service is back');
    kept = await agent.events();
    await agent.deliveredOnce(kept.map((event) => event.id), 'd'.repeat(64));
  }, 120_000);
});
