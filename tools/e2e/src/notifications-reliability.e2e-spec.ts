/**
 * Nothing is lost when a delivery worker is SIGKILLed in the middle of deliveries (BullMQ stalled-job recovery; the
 * duplicates this allows are counted and bounded) or when Redis is killed and restarted during a burst (with the
 * append-only persistence docs/deployment.md prescribes). Alerts go in through the gateway's webhook; every one
 * must reach each of its three sandbox stand-ins. SIGTERM lets a running delivery finish before the worker exits.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack } from '@rp/dev';
import { reading, scrape } from './support/app-metrics';
import {
  type NotificationsCalls,
  notificationsCalls,
  notificationsStack,
  alertFor,
} from './support/notification-channels';
import { type PersistentRedis, persistentRedis } from './support/persistent-redis';

interface Destinations {
  wallet: string;
  chatId: string;
  hookPath: string;
  email: string;
}

let chats = 80_000_000;

async function registerWallets(s: NotificationsCalls, count: number): Promise<Destinations[]> {
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
async function submit(s: NotificationsCalls, alert: object): Promise<void> {
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

/**
 * Per destination, how many messages each alert id produced there: alerts missing, extra copies, and the most extra
 * copies one destination received.
 */
function tally(s: NotificationsCalls, destinations: Destinations[], alertIds: string[]) {
  let missing = 0;
  let duplicates = 0;
  let worstDestination = 0;
  for (const d of destinations) {
    for (const [channel, destination] of [
      ['telegram', d.chatId],
      ['webhook', d.hookPath],
      ['email', d.email],
    ] as const) {
      const texts = s.messages({ channel, destination, outcome: 'delivered' }).map((m) => m.text);
      let extra = 0;
      for (const id of alertIds.filter((a) => a.includes(d.wallet.slice(-8)))) {
        const n = texts.filter((t) => t.includes(id)).length;
        if (n === 0) missing += 1;
        if (n > 1) extra += n - 1;
      }
      duplicates += extra;
      worstDestination = Math.max(worstDestination, extra);
    }
  }
  return { missing, duplicates, worstDestination };
}

async function allDelivered(
  s: NotificationsCalls,
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

/**
 * A webhook receiver that holds every request unanswered until `release()`, then answers 204 (held ones still open
 * and every later one). It records each request's alert id and whether it was answered.
 */
async function heldReceiver(alertIds: () => string[]) {
  const requests: { alertId: string; answered: boolean; open: boolean }[] = [];
  const waiting: (() => void)[] = [];
  let released = false;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = { alertId: alertIds().find((id) => body.includes(id)) ?? '?', answered: false, open: true };
      requests.push(request);
      res.on('close', () => (request.open = false));
      const answer = () => {
        if (!request.open) return;
        res.writeHead(204).end();
        request.answered = true;
      };
      if (released) answer();
      else waiting.push(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    hook: `http://${host}/hooks/discord/7/held`,
    requests,
    /** Requests still waiting for their answer. */
    pending: () => requests.filter((r) => r.open && !r.answered).length,
    release() {
      released = true;
      for (const answer of waiting.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Resolves once `condition` holds; the deadline only bounds a failure. */
async function until(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a delivery worker killed in the middle of deliveries', () => {
  let s: NotificationsCalls;
  let held: Awaited<ReturnType<typeof heldReceiver>>;
  const heldIds = [0, 1, 2].map((round) => `kill-held-${round}`);
  beforeAll(async () => {
    held = await heldReceiver(() => heldIds);
    // One worker until the kill: whatever delivery is under way then is that worker's.
    s = notificationsCalls(await startStack(notificationsStack({ workers: 1, webhookHosts: [held.host] })));
  }, 180_000);
  afterAll(async () => {
    await s?.stack.close();
    await held?.close();
  });

  it('still delivers every alert; duplicates stay within the jobs the dead worker was running', async () => {
    const destinations = await registerWallets(s, 60);
    const key = await s.apiKey();
    const heldWallet = s.wallet();
    await s.register(key, 'channelhook', { walletAddress: heldWallet, channelWebhook: held.hook, minRiskLevel: 'low' });
    const alertIds: string[] = [];
    // Three alerts per wallet: each destination's lane paces them about a second apart, so deliveries are in
    // flight for a few seconds; the held receiver's lane cannot move at all until it is released.
    const before = s.stack.sandbox.channels.log.lastId;
    // The held lane's alerts one after another, so that the order they are taken in is known.
    for (const alertId of heldIds) await submit(s, alertFor(heldWallet, { alertId }));
    const submissions: Promise<void>[] = [];
    for (let round = 0; round < 3; round += 1) {
      for (const d of destinations) {
        const alert = alertFor(d.wallet, { alertId: `kill-${round}-${d.wallet.slice(-8)}` });
        alertIds.push(alert.alertId);
        submissions.push(submit(s, alert));
      }
    }
    await Promise.all(submissions);
    // The event that makes this "in the middle": the only worker has sent a delivery it cannot finish (the held
    // receiver has not answered), and it has delivered to the stand-ins.
    await until(
      () => held.pending() > 0 && s.messages({ since: before }).length >= 60,
      'a held delivery and 60 delivered',
      120_000,
    );
    const killedAfter = s.messages({ since: before }).length;
    await s.stack.processes('notifications')[1].kill();
    await s.stack.start('notifications', { role: 'worker' });
    held.release();
    // Stalled-job recovery retakes the dead worker's jobs once their 10 s lock runs out.
    const { missing, duplicates, worstDestination } = await allDelivered(s, destinations, alertIds, 120_000);
    await until(
      () => heldIds.every((id) => held.requests.some((r) => r.alertId === id && r.answered)),
      'the held lane',
      120_000,
    );
    const expected = alertIds.length * 3;
    console.log(
      `worker SIGKILL after ${killedAfter}/${expected} deliveries: missing ${missing}, duplicates ${duplicates}`,
    );
    expect(missing).toBe(0);
    // Only the head of a destination's lane is ever sent, so the dead worker had at most one delivery per
    // destination in flight: at most one copy too many per destination.
    expect(worstDestination).toBeLessThanOrEqual(1);
    // The held delivery it died with was sent again by the new worker and answered once; each held alert once, in
    // the order they were taken in.
    expect(held.requests[0].alertId).toBe(heldIds[0]);
    expect(held.requests.filter((r) => r.answered).map((r) => r.alertId)).toEqual(heldIds);
  }, 400_000);
});

describe('Redis restarted during a burst', () => {
  let redis: PersistentRedis;
  let s: NotificationsCalls;
  beforeAll(async () => {
    redis = await persistentRedis();
    s = notificationsCalls(await startStack(notificationsStack({ workers: 1, redisUrl: redis.url })));
  }, 180_000);
  afterAll(async () => {
    await s?.stack.close();
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
    const { missing, duplicates, worstDestination } = await allDelivered(s, destinations, alertIds, 120_000);
    console.log(
      `Redis SIGKILL + restart mid-burst: ${alertIds.length * 3} deliveries expected, missing ${missing}, duplicates ${duplicates}`,
    );
    expect(missing).toBe(0);
    // A copy too many needs a delivery sent but not yet marked sent when Redis died; only the head of each
    // destination's lane is ever sent, so that is at most one per destination.
    expect(worstDestination).toBeLessThanOrEqual(1);
    expect(duplicates).toBeLessThanOrEqual(destinations.length * 3);
  }, 240_000);
});

describe('a delivery worker stopped with SIGTERM', () => {
  let s: NotificationsCalls;
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
    s = notificationsCalls(
      await startStack(notificationsStack({ workers: 1, env: { NOTIFICATIONS_WEBHOOK_HOSTS: `127.0.0.1:${port}` } })),
    );
  }, 180_000);
  afterAll(async () => {
    await s?.stack.close();
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
    const exitCode = await s.stack.processes('notifications')[1].stop();
    const exitedAt = Date.now();
    expect(exitCode).toBe(0);
    expect(requests[0].answeredAt).toBeDefined();
    expect(requests[0].answeredAt!).toBeLessThanOrEqual(exitedAt);
    // Not sent again: no job is left waiting, delayed or running (a job its worker died with stays 'active' until
    // its lock runs out, then is retaken), and none failed into the DLQ. The API process's metrics read the queue.
    expect(reading(await scrape(s.stack.app('notifications')), 'notifications_queue_depth')).toBe(0);
    expect(requests).toHaveLength(1);
    expect((await s.admin('GET', '/dlq')).body.total).toBe(0);
  }, 120_000);
});
