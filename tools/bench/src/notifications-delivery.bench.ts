import { randomBytes, randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { type AppProcess, type Stack, WORKSPACE_ROOT } from '@rp/dev';
import { profileFlags, startBenchStack } from './bench-stack';
import {
  BASE,
  type Destination,
  type Intake,
  SECRET,
  alert,
  exactlyOnce,
  intake,
  keysOf,
  load,
  redisPid,
  registerDestinations,
  waitFor,
} from './notifications-delivery-kit';
import { cpuDuring } from './process-cpu';
import { machineCaption, writeChart } from './svg-chart';

const WALLETS = Number(process.env['BENCH_WALLETS'] ?? 2000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const WORKERS = Number(process.env['BENCH_WORKERS'] ?? 2);
/** Each worker's concurrency; a list measures part 1 at each (the curve), part 2 at the last. */
const CONCURRENCIES = (process.env['BENCH_WORKER_CONCURRENCY'] ?? '50,100,200').split(',').map(Number);
const RATE = Number(process.env['BENCH_RATE'] ?? 100);
const RATE_SECONDS = Number(process.env['BENCH_RATE_SECONDS'] ?? 20);
/** Webhook calls part 1 keeps in flight (the API coalesces concurrent ones into batches). */
const IN_FLIGHT = Number(process.env['BENCH_IN_FLIGHT'] ?? 64);
/** Write V8 CPU profiles of the API and the first worker here (`BENCH_CPU_PROF=/tmp/prof`). */
const PROFILE_DIR = process.env['BENCH_CPU_PROF'];

/** 1. Sustained deliveries: `ROUNDS` alerts per wallet as fast as the API takes them, to the last one received. */
async function sustained(taken: Intake, destinations: Destination[]) {
  const began = performance.now();
  const { ids, seconds: intakeSeconds } = await postAll(taken, destinations, ROUNDS);
  const keys = keysOf(ids);
  const lost = await waitFor(taken, keys, 300_000);
  const last = Math.max(...keys.map((k) => taken.received.get(k) ?? 0));
  const seconds = (last - began) / 1000;
  return { seconds, lost, deliveries: keys.length - lost, intakeSeconds, keys };
}

/** `rounds` alerts per wallet through the webhook, `IN_FLIGHT` calls at once: the ids and how long the API took. */
async function postAll(taken: Intake, destinations: Destination[], rounds: number) {
  const ids: string[] = [];
  const began = performance.now();
  const jobs: Promise<unknown>[] = [];
  let inFlight = 0;
  // Woken when a call ends (polling with setImmediate while 64 were in flight spun the bench process's CPU).
  let slotFree: (() => void) | undefined;
  for (let round = 0; round < rounds; round += 1) {
    for (const d of destinations) {
      const id = `bench-${randomUUID()}`;
      ids.push(id);
      while (inFlight >= IN_FLIGHT) await new Promise<void>((r) => (slotFree = r));
      inFlight += 1;
      const done = () => {
        inFlight -= 1;
        slotFree?.();
        slotFree = undefined;
      };
      jobs.push(taken.call(`${BASE}/webhook`, alert(d, id), false).finally(done));
    }
  }
  await Promise.all(jobs);
  return { ids, seconds: (performance.now() - began) / 1000 };
}

/**
 * 3. The intake alone: the workers stopped, one alert per wallet as fast as the API takes them (its alerts/s and CPU
 * per alert, nothing else running of ours), then the workers started again deliver them (counted like the rest).
 */
async function intakeAlone(
  stack: Stack,
  api: AppProcess,
  taken: Intake,
  destinations: Destination[],
  workers: AppProcess[],
) {
  for (const worker of workers) await worker.stop();
  const { result, cpuMicros } = await cpuDuring({ api: api.pid }, () => postAll(taken, destinations, 1));
  const alertsPerSecond = result.ids.length / result.seconds;
  const apiMsPerAlert = (cpuMicros.api ?? NaN) / 1000 / result.ids.length;
  const loadAlone = load();
  // Stopped with the stack.
  for (let i = 0; i < WORKERS; i += 1)
    await startNotifications(stack, 'worker', CONCURRENCIES[CONCURRENCIES.length - 1]);
  const keys = keysOf(result.ids);
  const lost = await waitFor(taken, keys, 300_000);
  return { alerts: result.ids.length, alertsPerSecond, apiMsPerAlert, lost, keys, loadAlone };
}

interface CurvePoint {
  concurrency: number;
  perSecond: number;
  /** Alerts the API took per second (webhook calls answered). */
  intakePerSecond: number;
  lost: number;
  note: string;
  keys: string[];
  /** CPU ms per delivery of each process while part 1 ran (contention hardly changes it, unlike throughput). */
  cpuPerDelivery: Record<string, number>;
}

/** 1, once per worker concurrency in `CONCURRENCIES`: the workers restarted with it. */
async function deliveryCurve(
  stack: Stack,
  api: AppProcess,
  taken: Intake,
  destinations: Destination[],
): Promise<{ curve: CurvePoint[]; workers: AppProcess[] }> {
  const curve: CurvePoint[] = [];
  const redis = await redisPid(stack.redisUrl);
  let workers: AppProcess[] = [];
  for (const concurrency of CONCURRENCIES) {
    for (const worker of workers) await worker.stop();
    workers = [];
    for (let i = 0; i < WORKERS; i += 1) workers.push(await startNotifications(stack, 'worker', concurrency));
    const pids = {
      api: api.pid,
      ...Object.fromEntries(workers.map((w, i) => [`worker${i}`, w.pid])),
      'bench (load and stand-ins)': process.pid,
      redis,
    } as Record<string, number | undefined>;
    const { result: run, cpuMicros } = await cpuDuring(pids, () => sustained(taken, destinations));
    const cpuPerDelivery: Record<string, number> = {};
    for (const [name, micros] of Object.entries(cpuMicros)) {
      const ms = (micros as number) / 1000 / run.deliveries;
      if (name.startsWith('worker')) cpuPerDelivery['workers'] = (cpuPerDelivery['workers'] ?? 0) + ms;
      else cpuPerDelivery[name] = ms;
    }
    const perSecond = run.deliveries / run.seconds;
    const intakePerSecond = run.keys.length / 3 / run.intakeSeconds;
    const note = `${run.deliveries} delivered in ${run.seconds.toFixed(1)} s (intake took ${run.intakeSeconds.toFixed(1)} s: ${intakePerSecond.toFixed(0)} alerts/s); lost ${run.lost}; load ${load()}`;
    curve.push({ concurrency, perSecond, intakePerSecond, lost: run.lost, note, keys: run.keys, cpuPerDelivery });
    process.stdout.write(`concurrency ${concurrency}: ${perSecond.toFixed(0)} deliveries/s, ${note}\n`);
  }
  return { curve, workers };
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
 * 3. the intake alone: the workers stopped, one alert per wallet as fast as the API takes them (alerts/s, the API's
 *    CPU per alert), then delivered by workers started again.
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
  const api = await startNotifications(stack, 'api');
  const taken = intake(stack, api);
  try {
    process.stdout.write(`load average at the start: ${load()}\n`);
    const { destinations, registrationSeconds } = await registerDestinations(stack.sandbox.url, WALLETS, taken);
    const { curve, workers } = await deliveryCurve(stack, api, taken, destinations);
    const rate = await latencyAtRate(taken, destinations);
    const { latencies, lostLatency, sent } = rate;
    const loadAtRate = load();
    const alone = await intakeAlone(stack, api, taken, destinations, workers);
    const counted = await exactlyOnce(taken, [...curve.flatMap((c) => c.keys), ...rate.keys, ...alone.keys]);
    report({ registrationSeconds, curve, latencies, lostLatency, sent, loadAtRate, alone, counted });
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
  alone: Awaited<ReturnType<typeof intakeAlone>>;
  counted: Awaited<ReturnType<typeof exactlyOnce>>;
}): void {
  const { registrationSeconds, curve, latencies, lostLatency, sent, loadAtRate, alone, counted } = results;
  const lostThroughput = curve.reduce((sum, c) => sum + c.lost, 0);
  const pct = (values: number[], q: number) =>
    Math.round(values[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN);
  const rows = [
    `| registrations (3 channels × ${WALLETS} wallets, one after another) | ${((WALLETS * 3) / registrationSeconds).toFixed(0)} /s | |`,
    ...curve.map(
      (c) =>
        `| sustained deliveries, ${ROUNDS} alerts × ${WALLETS} wallets × 3 channels, ${WORKERS} worker processes × ${c.concurrency} | ${c.perSecond.toFixed(0)} /s | ${c.note} |`,
    ),
    ...curve.map((c) => {
      const total = Object.values(c.cpuPerDelivery).reduce((sum, ms) => sum + ms, 0);
      const parts = Object.entries(c.cpuPerDelivery)
        .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
        .join(', ');
      return `| CPU per delivery, ${WORKERS} workers × ${c.concurrency} (ms, every process of the run) | ${total.toFixed(2)} ms: at most ${((cpus().length * 1000) / total).toFixed(0)} deliveries/s on ${cpus().length} free cores | ${parts}; the API's per alert ${((c.cpuPerDelivery['api'] ?? 0) * 3).toFixed(2)} ms |`;
    }),
    ...(['telegram', 'webhook', 'email', undefined] as const).map((channel) => {
      const values = latencies(channel);
      return `| intake → delivered at ${RATE} alerts/s, ${channel ?? 'all channels'} | p50 ${pct(values, 0.5)} ms, p99 ${pct(values, 0.99)} ms | ${values.length} deliveries; load ${loadAtRate} |`;
    }),
    `| lost at ${RATE} alerts/s | ${lostLatency} | of ${sent} |`,
    `| the intake alone (workers stopped), ${alone.alerts} alerts, ${IN_FLIGHT} calls in flight | ${alone.alertsPerSecond.toFixed(0)} alerts/s (${(alone.alertsPerSecond * 3).toFixed(0)} deliveries/s queued) | the API's CPU ${alone.apiMsPerAlert.toFixed(2)} ms per alert; lost ${alone.lost}; load ${alone.loadAlone} |`,
    `| every (alert, channel) of every part received exactly once | ${counted.once} of ${counted.expected} | missing ${counted.missing}, more than once ${counted.twice} |`,
  ];
  process.stdout.write(`\n${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}\n\n`);
  process.stdout.write(['| measurement | result | notes |', '|---|---|---|', ...rows].join('\n') + '\n');
  process.stdout.write(
    `\n${JSON.stringify({ deliveriesPerSecond: curve.map((c) => ({ concurrency: c.concurrency, perSecond: c.perSecond, intakePerSecond: c.intakePerSecond, cpuPerDelivery: c.cpuPerDelivery })), lostThroughput, lostLatency, p50: pct(latencies(), 0.5), p99: pct(latencies(), 0.99), intakeAlone: { alertsPerSecond: alone.alertsPerSecond, apiMsPerAlert: alone.apiMsPerAlert }, exactlyOnce: counted, loadAtRate })}\n`,
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
