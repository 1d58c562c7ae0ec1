import { randomBytes, randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { type AppProcess, type Stack, WORKSPACE_ROOT } from '@rp/dev';
import { signInternalRequest } from '@rp/platform';
import { Keypair } from '@stellar/stellar-sdk';
import { Pool } from 'undici';
import { profileFlags, startBenchStack } from './bench-stack';
import { machineCaption, writeChart } from './svg-chart';

const SECRET = 'bench-webhook-secret-0123456789';
const WALLETS = Number(process.env['BENCH_WALLETS'] ?? 2000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const WORKERS = Number(process.env['BENCH_WORKERS'] ?? 2);
/** Each worker's concurrency; a list measures part 1 at each (the curve), part 2 at the last. */
const CONCURRENCIES = (process.env['BENCH_WORKER_CONCURRENCY'] ?? '50,100,200').split(',').map(Number);
const RATE = Number(process.env['BENCH_RATE'] ?? 100);
const RATE_SECONDS = Number(process.env['BENCH_RATE_SECONDS'] ?? 20);
/** Webhook calls part 1 keeps in flight (the API coalesces concurrent ones into batches). */
const IN_FLIGHT = Number(process.env['BENCH_IN_FLIGHT'] ?? 64);
const BASE = '/api/v1/rms/notifications';
/** Write V8 CPU profiles of the API and the first worker here (`BENCH_CPU_PROF=/tmp/prof`). */
const PROFILE_DIR = process.env['BENCH_CPU_PROF'];

interface Destination {
  wallet: string;
  chatId: string;
  hook: string;
  email: string;
}

/** The API process's routes signed as the gateway signs them, and when each alert reached each stand-in. */
interface Intake {
  call(path: string, body: object, withIdentity: boolean): Promise<Record<string, unknown>>;
  /** When each alert was first received, by "<alertId>|<channel>". */
  received: Map<string, number>;
  /** How many times each was received (exactly once each is the count check). */
  times: Map<string, number>;
  pool: Pool;
}

function intake(stack: Stack, api: AppProcess): Intake {
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

/** `WALLETS` wallets with the three channels each (own chat, own bot, own hook, own address). */
async function registerDestinations(sandboxUrl: string, { call }: Intake) {
  const registered = performance.now();
  const destinations: Destination[] = [];
  for (let i = 0; i < WALLETS; i += 1) {
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

const alert = (d: Destination, id: string) => ({
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

/** How many of `keys` were not received within `timeoutMs`. */
async function waitFor({ received }: Intake, keys: string[], timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (keys.some((k) => !received.has(k)) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return keys.filter((k) => !received.has(k)).length;
}
const keysOf = (ids: string[]) => ids.flatMap((id) => ['telegram', 'webhook', 'email'].map((c) => `${id}|${c}`));

/** 1. Sustained deliveries: `ROUNDS` alerts per wallet as fast as the API takes them, to the last one received. */
async function sustained(taken: Intake, destinations: Destination[]) {
  const ids: string[] = [];
  const began = performance.now();
  const jobs: Promise<unknown>[] = [];
  let inFlight = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const d of destinations) {
      const id = `bench-${randomUUID()}`;
      ids.push(id);
      while (inFlight >= IN_FLIGHT) await new Promise((r) => setImmediate(r));
      inFlight += 1;
      jobs.push(taken.call(`${BASE}/webhook`, alert(d, id), false).finally(() => (inFlight -= 1)));
    }
  }
  await Promise.all(jobs);
  const accepted = performance.now();
  const keys = keysOf(ids);
  const lost = await waitFor(taken, keys, 300_000);
  const last = Math.max(...keys.map((k) => taken.received.get(k) ?? 0));
  const seconds = (last - began) / 1000;
  return { seconds, lost, deliveries: keys.length - lost, intakeSeconds: (accepted - began) / 1000, keys };
}

interface CurvePoint {
  concurrency: number;
  perSecond: number;
  /** Alerts the API took per second (webhook calls answered). */
  intakePerSecond: number;
  lost: number;
  note: string;
  keys: string[];
}

/** 1, once per worker concurrency in `CONCURRENCIES`: the workers restarted with it. */
async function deliveryCurve(stack: Stack, taken: Intake, destinations: Destination[]): Promise<CurvePoint[]> {
  const curve: CurvePoint[] = [];
  let workers: AppProcess[] = [];
  for (const concurrency of CONCURRENCIES) {
    for (const worker of workers) await worker.stop();
    workers = [];
    for (let i = 0; i < WORKERS; i += 1) workers.push(await startNotifications(stack, 'worker', concurrency));
    const run = await sustained(taken, destinations);
    const perSecond = run.deliveries / run.seconds;
    const intakePerSecond = run.keys.length / 3 / run.intakeSeconds;
    const note = `${run.deliveries} delivered in ${run.seconds.toFixed(1)} s (intake took ${run.intakeSeconds.toFixed(1)} s: ${intakePerSecond.toFixed(0)} alerts/s); lost ${run.lost}; load ${load()}`;
    curve.push({ concurrency, perSecond, intakePerSecond, lost: run.lost, note, keys: run.keys });
    process.stdout.write(`concurrency ${concurrency}: ${perSecond.toFixed(0)} deliveries/s, ${note}\n`);
  }
  return curve;
}

/** 2. Latency at a steady rate (wallets in turn: no destination sees two alerts within a few seconds). */
async function latencyAtRate(taken: Intake, destinations: Destination[]) {
  const submittedAt = new Map<string, number>();
  const latencyIds: string[] = [];
  const total = RATE * RATE_SECONDS;
  const t0 = performance.now();
  const sends: Promise<unknown>[] = [];
  for (let i = 0; i < total; i += 1) {
    const due = t0 + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const id = `bench-${randomUUID()}`;
    latencyIds.push(id);
    const d = destinations[i % destinations.length];
    sends.push(taken.call(`${BASE}/webhook`, alert(d, id), false).then(() => submittedAt.set(id, performance.now())));
  }
  await Promise.all(sends);
  const latencyKeys = keysOf(latencyIds);
  const lostLatency = await waitFor(taken, latencyKeys, 120_000);
  const latencies = (channel?: string) =>
    latencyKeys
      .filter((k) => !channel || k.endsWith(`|${channel}`))
      .filter((k) => taken.received.has(k))
      .map((k) => (taken.received.get(k) as number) - (submittedAt.get(k.split('|')[0]) as number))
      .sort((a, b) => a - b);
  return { latencies, lostLatency, sent: latencyKeys.length, keys: latencyKeys };
}

/** The machine's load average (1, 5, 15 min): the share of the two cores the bench had. */
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');

/**
 * The count check, once every part is done and a few seconds more have passed for late copies: each (alert,
 * channel) of every part received exactly once.
 */
async function exactlyOnce({ times }: Intake, keys: string[]) {
  await new Promise((r) => setTimeout(r, 3000));
  const counts = keys.map((k) => times.get(k) ?? 0);
  return {
    expected: keys.length,
    once: counts.filter((n) => n === 1).length,
    missing: counts.filter((n) => n === 0).length,
    twice: counts.filter((n) => n > 1).length,
  };
}

let starts = 0;

/** A notifications process in `role`; the API and the first worker write CPU profiles under BENCH_CPU_PROF. */
function startNotifications(stack: Stack, role: string, concurrency = CONCURRENCIES[0]): Promise<AppProcess> {
  const profiled = role === 'api' || starts === 1;
  starts += 1;
  return stack.start('notifications', {
    role,
    env: { NOTIFICATIONS_WORKER_CONCURRENCY: String(concurrency) },
    nodeArgs: profiled ? profileFlags(PROFILE_DIR, role) : [],
  });
}

/**
 * Deliveries of the notifications service to the sandbox's Telegram, Discord/Slack and SMTP stand-ins, as real
 * processes (`NODE_ENV=production`, `LOG_LEVEL=warn`): one API process and `WORKERS` worker processes on the test
 * Redis, `WALLETS` wallets with the three channels each (own chat, own bot, own hook, own address: many
 * destinations). Alerts go in through the webhook route, signed as the gateway would.
 * 1. sustained deliveries/s: `ROUNDS` alerts per wallet as fast as the API takes them (each destination paced by
 *    its lane, about 1/s), from the first submission to the last message received; once per worker concurrency in
 *    `CONCURRENCIES` (the workers restarted with it), drawn as a curve;
 * 2. latency at `RATE` alerts/s for `RATE_SECONDS`: intake (webhook answered) to the stand-in receiving it.
 * Every alert must reach each of its three destinations, once (the count check after every part: none missing,
 * none received twice).
 */
async function main(): Promise<void> {
  const stack = await startBenchStack({
    apps: [],
    scenario: 'empty',
    ledgerIntervalMs: 0,
    // A file the API and the workers share (the API writes configurations, workers read them).
    files: ['notifications'],
    env: {
      notifications: {
        NOTIFICATIONS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        EMAIL_FROM: 'bench@example.com',
        RMS_WEBHOOK_SECRET: SECRET,
      },
    },
  });
  const taken = intake(stack, await startNotifications(stack, 'api'));
  try {
    process.stdout.write(`load average at the start: ${load()}\n`);
    const { destinations, registrationSeconds } = await registerDestinations(stack.sandbox.url, taken);
    const curve = await deliveryCurve(stack, taken, destinations);
    const rate = await latencyAtRate(taken, destinations);
    const { latencies, lostLatency, sent } = rate;
    const loadAtRate = load();
    const counted = await exactlyOnce(taken, [...curve.flatMap((c) => c.keys), ...rate.keys]);
    report({ registrationSeconds, curve, latencies, lostLatency, sent, loadAtRate, counted });
  } finally {
    await taken.pool.close();
    await stack.close();
  }
}

function report(results: {
  registrationSeconds: number;
  curve: CurvePoint[];
  latencies: (channel?: string) => number[];
  lostLatency: number;
  sent: number;
  loadAtRate: string;
  counted: Awaited<ReturnType<typeof exactlyOnce>>;
}): void {
  const { registrationSeconds, curve, latencies, lostLatency, sent, loadAtRate, counted } = results;
  const lostThroughput = curve.reduce((sum, c) => sum + c.lost, 0);
  const pct = (values: number[], q: number) =>
    Math.round(values[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN);
  const rows = [
    `| registrations (3 channels × ${WALLETS} wallets, one after another) | ${((WALLETS * 3) / registrationSeconds).toFixed(0)} /s | |`,
    ...curve.map(
      (c) =>
        `| sustained deliveries, ${ROUNDS} alerts × ${WALLETS} wallets × 3 channels, ${WORKERS} worker processes × ${c.concurrency} | ${c.perSecond.toFixed(0)} /s | ${c.note} |`,
    ),
    ...(['telegram', 'webhook', 'email', undefined] as const).map((channel) => {
      const values = latencies(channel);
      return `| intake → delivered at ${RATE} alerts/s, ${channel ?? 'all channels'} | p50 ${pct(values, 0.5)} ms, p99 ${pct(values, 0.99)} ms | ${values.length} deliveries; load ${loadAtRate} |`;
    }),
    `| lost at ${RATE} alerts/s | ${lostLatency} | of ${sent} |`,
    `| every (alert, channel) of every part received exactly once | ${counted.once} of ${counted.expected} | missing ${counted.missing}, more than once ${counted.twice} |`,
  ];
  process.stdout.write(`\n${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}\n\n`);
  process.stdout.write(['| measurement | result | notes |', '|---|---|---|', ...rows].join('\n') + '\n');
  process.stdout.write(
    `\n${JSON.stringify({ deliveriesPerSecond: curve.map((c) => ({ concurrency: c.concurrency, perSecond: c.perSecond, intakePerSecond: c.intakePerSecond })), lostThroughput, lostLatency, p50: pct(latencies(), 0.5), p99: pct(latencies(), 0.99), exactlyOnce: counted, loadAtRate })}\n`,
  );
  const chart = writeChart(WORKSPACE_ROOT, 'notifications-delivery', {
    kind: 'line',
    title: `Deliveries/s against worker concurrency (${WORKERS} workers, ${WALLETS * 3} destinations)`,
    caption: machineCaption(),
    xLabel: 'concurrency of each worker process (NOTIFICATIONS_WORKER_CONCURRENCY)',
    yLabel: 'deliveries/s',
    series: [
      {
        name: `${ROUNDS} alerts × ${WALLETS} wallets × 3 channels`,
        points: curve.map((c) => [c.concurrency, c.perSecond]),
      },
    ],
  });
  if (chart) process.stdout.write(`chart: ${chart}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
