/**
 * What the notifications-delivery bench is made of besides its parts: the API's routes signed as the gateway signs
 * them, the wallets and their destinations, what the stand-ins received (and how often), the machine's load.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { AppProcess, Stack } from '@rp/dev';
import { signInternalRequest } from '@rp/platform';
import { Keypair } from '@stellar/stellar-sdk';
import Redis from 'ioredis';
import { Pool } from 'undici';

export const SECRET = 'bench-webhook-secret-0123456789';
export const BASE = '/api/v1/rms/notifications';

export interface Destination {
  wallet: string;
  chatId: string;
  hook: string;
  email: string;
}

/** The API process's routes signed as the gateway signs them, and when each alert reached each stand-in. */
export interface Intake {
  call(path: string, body: object, withIdentity: boolean): Promise<Record<string, unknown>>;
  /** When each alert was first received, by "<alertId>|<channel>". */
  received: Map<string, number>;
  /** How many times each was received (exactly once each is the count check). */
  times: Map<string, number>;
  pool: Pool;
}

export function intake(stack: Stack, api: AppProcess): Intake {
  const pool = new Pool(api.url, { connections: 64, keepAliveTimeout: 30_000 });
  const identity = {
    keyId: 'bench',
    tier: 'partner' as const,
    rateLimit: 1e6,
    burst: 1e6,
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    email: 'bench@example.com',
    account: 'partner:bench',
  };
  const call = async (path: string, body: object, withIdentity: boolean) => {
    const text = JSON.stringify(body);
    const requestId = randomUUID();
    const headers = {
      ...signInternalRequest({
        token: stack.internalToken,
        method: 'POST',
        path,
        requestId,
        identity: withIdentity ? identity : undefined,
        body: text,
      }),
      'x-request-id': requestId,
      'content-type': 'application/json',
      ...(withIdentity ? {} : { 'x-webhook-secret': SECRET }),
    };
    const answer = await pool.request({ method: 'POST', path, headers, body: text });
    const answerText = await answer.body.text();
    if (answer.statusCode >= 300) throw new Error(`${path}: ${answer.statusCode} ${answerText}`);
    return JSON.parse(answerText) as Record<string, unknown>;
  };
  const received = new Map<string, number>();
  const times = new Map<string, number>();
  stack.sandbox.channels.log.subscribe((entry) => {
    if (entry.outcome !== 'delivered') return;
    const id = /(bench-[0-9a-f-]+)/.exec(entry.text)?.[1];
    if (!id) return;
    const key = `${id}|${entry.channel}`;
    times.set(key, (times.get(key) ?? 0) + 1);
    if (!received.has(key)) {
      received.set(key, performance.now());
    }
  });
  return { call, received, times, pool };
}

/** `wallets` wallets with the three channels each (own chat, own bot, own hook, own address). */
export async function registerDestinations(sandboxUrl: string, wallets: number, { call }: Intake) {
  const registered = performance.now();
  const destinations: Destination[] = [];
  for (let i = 0; i < wallets; i += 1) {
    const id = 90_000_000 + i;
    const bot = `${700_000 + i}:${randomBytes(18).toString('hex')}`;
    const hook =
      i % 2 === 0 ? `${sandboxUrl}/hooks/discord/${id}/t${i}` : `${sandboxUrl}/hooks/slack/T${i}/B${i}/X${i}`;
    destinations.push({
      wallet: Keypair.random().publicKey(),
      chatId: String(id),
      hook,
      email: `w${i}@bench.example`,
    });
    const d = destinations[i];
    await Promise.all([
      call(
        `${BASE}/messenger`,
        { walletAddress: d.wallet, messengerChatId: d.chatId, messengerBotToken: bot, minRiskLevel: 'low' },
        true,
      ),
      call(`${BASE}/channelhook`, { walletAddress: d.wallet, channelWebhook: d.hook, minRiskLevel: 'low' }, true),
      call(`${BASE}/email`, { walletAddress: d.wallet, email: d.email, minRiskLevel: 'low' }, true),
    ]);
  }
  return { destinations, registrationSeconds: (performance.now() - registered) / 1000 };
}

export const alert = (d: Destination, id: string) => ({
  source: 'bench',
  alert: {
    alertId: id,
    address: d.wallet,
    poolAddress: 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA',
    riskLevel: 'critical',
    healthFactor: 1.05,
    triggers: ['low_health_factor'],
    collateralValueUsd: 1000,
    liabilityValueUsd: 950,
    recommendedAction: 'LIQUIDATE',
    evaluatedAt: new Date().toISOString(),
  },
  routing: { priority: 'urgent' },
});

/**
 * How many of `keys` were not received within `timeoutMs`. Each look resumes at the first key not yet received (a
 * key once received stays so): scanning every key every 50 ms was a tenth of the bench process's CPU, counted in
 * each delivery's cost.
 */
export async function waitFor({ received }: Intake, keys: string[], timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  let first = 0;
  for (;;) {
    while (first < keys.length && received.has(keys[first])) first += 1;
    if (first === keys.length || Date.now() >= until) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return keys.filter((k) => !received.has(k)).length;
}
export const keysOf = (ids: string[]) => ids.flatMap((id) => ['telegram', 'webhook', 'email'].map((c) => `${id}|${c}`));

/** The pid of the Redis the stack uses (its CPU is part of every delivery's cost). */
export async function redisPid(url: string): Promise<number | undefined> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const pid = /process_id:(\d+)/.exec(await redis.info('server'))?.[1];
    return pid === undefined ? undefined : Number(pid);
  } catch {
    return undefined;
  } finally {
    redis.disconnect();
  }
}

/** The machine's load average (1, 5, 15 min): the share of the two cores the bench had. */
export const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');

/**
 * The count check, once every part is done and a few seconds more have passed for late copies: each (alert,
 * channel) of every part received exactly once.
 */
export async function exactlyOnce({ times }: Intake, keys: string[]) {
  await new Promise((r) => setTimeout(r, 3000));
  const counts = keys.map((k) => times.get(k) ?? 0);
  return {
    expected: keys.length,
    once: counts.filter((n) => n === 1).length,
    missing: counts.filter((n) => n === 0).length,
    twice: counts.filter((n) => n > 1).length,
  };
}
