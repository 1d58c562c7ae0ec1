/**
 * Nothing is lost when a delivery worker is SIGKILLed in the middle of deliveries (BullMQ stalled-job recovery; the
 * duplicates this allows are counted and reported) or when Redis is killed and restarted during a burst (with the
 * append-only persistence docs/deployment.md prescribes). Alerts go in through the gateway's webhook; every one
 * must reach each of its three sandbox stand-ins. SIGTERM lets a running delivery finish before the worker exits.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type NotificationsStack, alertFor, startNotificationsStack } from './support/notifications-stack';
import { type PersistentRedis, persistentRedis } from './support/persistent-redis';

interface Destinations {
  wallet: string;
  chatId: string;
  hookPath: string;
  email: string;
}

let chats = 80_000_000;

async function registerWallets(s: NotificationsStack, count: number): Promise<Destinations[]> {
  const key = await s.apiKey();
  const all: Destinations[] = [];
  for (let i = 0; i < count; i += 1) {
    chats += 1;
    const wallet = s.wallet();
    const hook = s.hookUrl(i % 2 === 0 ? 'discord' : 'slack');
    const d = {
      wallet,
      chatId: String(chats),
      hookPath: new URL(hook).pathname.replace(/^\/hooks\//, ''),
      email: `${chats}@example.com`,
    };
    for (const [path, body] of [
      ['messenger', { walletAddress: wallet, messengerChatId: d.chatId, minRiskLevel: 'low' }],
      ['channelhook', { walletAddress: wallet, channelWebhook: hook, minRiskLevel: 'low' }],
      ['email', { walletAddress: wallet, email: d.email, minRiskLevel: 'low' }],
    ] as const) {
      await s.register(key, path, body);
    }
    all.push(d);
  }
  return all;
}

/** Posts the alert until the service has taken it (202, or `duplicate` after a lost answer). */
async function submit(s: NotificationsStack, alert: object): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    try {
      const answer = await s.webhook({ source: 'e2e', alert, routing: { priority: 'urgent' } });
      if (answer.status === 202) return;
    } catch {
      // connection refused or reset while something restarts: try again
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('alert never accepted');
}

/** Per destination, how many messages each alert id produced there. */
function tally(s: NotificationsStack, destinations: Destinations[], alertIds: string[]) {
  let missing = 0;
  let duplicates = 0;
  for (const d of destinations) {
    for (const [channel, destination] of [
      ['telegram', d.chatId],
      ['webhook', d.hookPath],
      ['email', d.email],
    ] as const) {
      const texts = s.messages({ channel, destination, outcome: 'delivered' }).map((m) => m.text);
      for (const id of alertIds.filter((a) => a.includes(d.wallet.slice(-8)))) {
        const n = texts.filter((t) => t.includes(id)).length;
        if (n === 0) missing += 1;
        if (n > 1) duplicates += n - 1;
      }
    }
  }
  return { missing, duplicates };
}

async function allDelivered(
  s: NotificationsStack,
  destinations: Destinations[],
  alertIds: string[],
  timeoutMs: number,
) {
  const until = Date.now() + timeoutMs;
  let result = tally(s, destinations, alertIds);
  while (result.missing > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    result = tally(s, destinations, alertIds);
  }
  return result;
}

describe('a delivery worker killed in the middle of deliveries', () => {
  let s: NotificationsStack;
  beforeAll(async () => {
    s = await startNotificationsStack({ workers: 2 });
  }, 180_000);
  afterAll(() => s?.close());

  it('still delivers every alert; duplicates stay within the jobs the dead worker was running', async () => {
    const destinations = await registerWallets(s, 60);
    const alertIds: string[] = [];
    // Three alerts per wallet: each destination's lane paces them about a second apart, so deliveries are in
    // flight for a few seconds.
    const before = s.sandbox.channels.log.lastId;
    const submissions: Promise<void>[] = [];
    for (let round = 0; round < 3; round += 1) {
      for (const d of destinations) {
        const alert = alertFor(d.wallet, { alertId: `kill-${round}-${d.wallet.slice(-8)}` });
        alertIds.push(alert.alertId);
        submissions.push(submit(s, alert));
      }
    }
    await Promise.all(submissions);
    await s.waitForMessages({ since: before }, 60);
    const killedAfter = s.messages({ since: before }).length;
    await s.workers[0].kill();
    const { missing, duplicates } = await allDelivered(s, destinations, alertIds, 120_000);
    const expected = alertIds.length * 3;
    console.log(
      `worker SIGKILL after ${killedAfter}/${expected} deliveries: missing ${missing}, duplicates ${duplicates}`,
    );
    expect(killedAfter).toBeLessThan(expected);
    expect(missing).toBe(0);
    // A duplicate needs a job that was running in the dead worker: at most its concurrency.
    expect(duplicates).toBeLessThanOrEqual(200);
  }, 240_000);
});

describe('Redis restarted during a burst', () => {
  let redis: PersistentRedis;
  let s: NotificationsStack;
  beforeAll(async () => {
    redis = await persistentRedis();
    s = await startNotificationsStack({ workers: 1, redisUrl: redis.url });
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    await redis?.close();
  });

  it('loses nothing that was accepted', async () => {
    const destinations = await registerWallets(s, 40);
    const alertIds: string[] = [];
    const submissions: Promise<void>[] = [];
    let restarted: Promise<void> | undefined;
    for (let round = 0; round < 3; round += 1) {
      for (const d of destinations) {
        const alert = alertFor(d.wallet, { alertId: `redis-${round}-${d.wallet.slice(-8)}` });
        alertIds.push(alert.alertId);
        submissions.push(submit(s, alert));
      }
      if (round === 1) {
        restarted = (async () => {
          await redis.kill();
          await new Promise((resolve) => setTimeout(resolve, 1000));
          await redis.start();
        })();
      }
    }
    await restarted;
    await Promise.all(submissions);
    const { missing, duplicates } = await allDelivered(s, destinations, alertIds, 120_000);
    console.log(
      `Redis SIGKILL + restart mid-burst: ${alertIds.length * 3} deliveries expected, missing ${missing}, duplicates ${duplicates}`,
    );
    expect(missing).toBe(0);
  }, 240_000);
});

describe('a delivery worker stopped with SIGTERM', () => {
  let s: NotificationsStack;
  let slow: Server;
  const requests: { startedAt: number; answeredAt?: number }[] = [];
  beforeAll(async () => {
    // A webhook receiver that takes 3 s to answer: a delivery to it is in flight when the worker is told to stop.
    slow = createServer((req, res) => {
      const request: { startedAt: number; answeredAt?: number } = { startedAt: Date.now() };
      requests.push(request);
      req.resume();
      setTimeout(() => {
        res.writeHead(204).end();
        request.answeredAt = Date.now();
      }, 3000);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const port = (slow.address() as AddressInfo).port;
    s = await startNotificationsStack({ workers: 1, env: { NOTIFICATIONS_WEBHOOK_HOSTS: `127.0.0.1:${port}` } });
  }, 180_000);
  afterAll(async () => {
    await s?.close();
    await new Promise((resolve) => slow?.close(resolve));
  });

  it('lets the running delivery finish before the process exits, and it is not sent again', async () => {
    const key = await s.apiKey();
    const wallet = s.wallet();
    const port = (slow.address() as AddressInfo).port;
    const hook = `http://127.0.0.1:${port}/hooks/discord/1/slow`;
    await s.register(key, 'channelhook', { walletAddress: wallet, channelWebhook: hook, minRiskLevel: 'low' });
    expect((await s.webhook({ source: 'e2e', alert: alertFor(wallet) })).body.queued).toEqual(['channelhook']);
    for (let i = 0; i < 200 && requests.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests).toHaveLength(1);
    const exitCode = await s.workers[0].stop();
    const exitedAt = Date.now();
    expect(exitCode).toBe(0);
    expect(requests[0].answeredAt).toBeDefined();
    expect(requests[0].answeredAt!).toBeLessThanOrEqual(exitedAt);
    // A new worker finds nothing left to do: the job completed (a lost job would be retaken after its 10 s lock).
    await s.startWorker();
    await new Promise((resolve) => setTimeout(resolve, 16_000));
    expect(requests).toHaveLength(1);
    expect((await s.admin('GET', '/dlq')).body.total).toBe(0);
  }, 120_000);
});
