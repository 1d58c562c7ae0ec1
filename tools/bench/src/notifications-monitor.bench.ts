import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { type AppProcess, type Stack, WORKSPACE_ROOT } from '@rp/dev';
import { type RunningSandbox, UNIT } from '@rp/sandbox';
import Redis from 'ioredis';
import { Pool } from 'undici';
import { profileFlags, signedPost, startBenchStack } from './bench-stack';
import { cpuDuring } from './process-cpu';
import { machineCaption, writeChart } from './svg-chart';

/** Watched wallets at each point of the curve (cumulative). */
const SIZES = (process.env['BENCH_WALLETS'] ?? '1000,10000,50000').split(',').map(Number);
/** Warm rounds measured at each size. */
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
/** Price changes timed from the ledger close to the alert at the stand-in. */
const ALERTS = Number(process.env['BENCH_ALERTS'] ?? 30);
/** The size the alert latency is measured at (the 10 000). */
const ALERT_AT = Number(process.env['BENCH_ALERT_AT'] ?? 10_000);
const PREFIX = `bench${randomBytes(3).toString('hex')}`;
/** Write V8 CPU profiles of the scheduler and the first worker here (`BENCH_CPU_PROF=/tmp/prof`). */
const PROFILE_DIR = process.env['BENCH_CPU_PROF'];

const identity = {
  keyId: 'bench-monitor-key',
  tier: 'partner' as const,
  rateLimit: 1_000_000,
  burst: 1_000_000,
  expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  email: 'bench@example.com',
  account: 'partner:bench-monitor',
};

/** The API process's registration route, signed as the gateway signs it. */
interface Registrations {
  api: Pool;
  token: string;
}

/** Completed rounds and their summed duration, from the monitor's own `/metrics`. */
async function roundMetrics(monitor: AppProcess): Promise<{ count: number; sum: number }> {
  const text = await (await fetch(`${monitor.url}/metrics`)).text();
  const value = (suffix: string) =>
    Number(
      new RegExp(`^rms_monitor_round_duration_seconds_${suffix}\\{[^}]*outcome="completed"[^}]*\\} (\\S+)`, 'm').exec(
        text,
      )?.[1] ?? 0,
    );
  return { count: value('count'), sum: value('sum') };
}

/** Wallets per batch job and batch jobs at once per worker process (the service's defaults: 500 and 2). */
const BATCH_SIZE = Number(process.env['BENCH_BATCH_SIZE'] ?? 500);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 2);

/** What a round is timed with: the ledger to close, the scheduler's metrics, Redis, and the wallets it watches. */
interface RoundClock {
  sandbox: RunningSandbox;
  monitor: AppProcess;
  redis: Redis;
  watched: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Closes a ledger and waits for the round it starts; its duration in ms (as the scheduler measured it). The end is
 * seen in Redis (the round's done counter reaching its batch count: cheap GETs), then the duration is read once
 * from `/metrics`: scraping `/metrics` every few ms cost the scheduler more CPU than the round's own work at 50k.
 */
async function timedRound(clock: RoundClock): Promise<number> {
  const before = await roundMetrics(clock.monitor);
  const rounds = `${PREFIX}:rms:rounds`;
  const last = Number(await clock.redis.get(rounds));
  const batches = Math.ceil(clock.watched / BATCH_SIZE);
  clock.sandbox.ledger.closeLedger();
  for (;;) {
    await sleep(5);
    const round = Number(await clock.redis.get(rounds));
    if (round > last && Number(await clock.redis.get(`${PREFIX}:rms:round:${round}:done`)) >= batches) break;
  }
  for (;;) {
    const after = await roundMetrics(clock.monitor);
    if (after.count > before.count) return Math.round((after.sum - before.sum) * 1000);
    await sleep(5);
  }
}

/** Registers an email channel for each wallet through the API (signed as the gateway signs). */
async function register(
  { api, token }: Registrations,
  wallets: readonly string[],
  minRiskLevel: string,
  email = (i: number) => `w${i}@example.com`,
) {
  let next = 0;
  const worker = async () => {
    while (next < wallets.length) {
      const i = next++;
      const path = '/api/v1/rms/notifications/email';
      const body = JSON.stringify({ walletAddress: wallets[i], email: email(i), minRiskLevel });
      const answer = await signedPost(api, token, path, identity, body);
      const text = await answer.body.text();
      if (answer.statusCode !== 201) throw new Error(`registration answered ${answer.statusCode}: ${text}`);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const quantile = (values: readonly number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

/** CPU milliseconds each process used during a round: where a round's work is done. */
type RoundCpu = Partial<Record<'scheduler' | 'worker' | 'sandbox' | 'redis', number>>;

interface Curve {
  wallets: number;
  coldMs: number;
  /** CPU ms of the cold round by process (`sandbox` is the bench process, which serves the RPC). */
  coldCpuMs: RoundCpu;
  warmMedianMs: number;
  warmMaxMs: number;
  /** Median CPU ms of the warm rounds by process: what load disturbs far less than their duration. */
  warmCpuMs: RoundCpu;
}

/** The processes a round runs in: the scheduler, the (first) worker, this process (the sandbox) and Redis. */
type RoundPids = Record<keyof RoundCpu, number | undefined>;

/** Redis's own pid (it runs on this machine), for its share of a round's CPU. */
async function redisPid(redis: Redis): Promise<number | undefined> {
  const pid = /^process_id:(\d+)/m.exec(await redis.info('server'))?.[1];
  return pid === undefined ? undefined : Number(pid);
}

/** A round timed as `timedRound`, with the CPU ms each process used meanwhile. */
async function measuredRound(clock: RoundClock, pids: RoundPids): Promise<{ ms: number; cpu: RoundCpu }> {
  const { result, cpuMicros } = await cpuDuring(pids, () => timedRound(clock));
  const cpu: RoundCpu = {};
  for (const [name, micros] of Object.entries(cpuMicros) as [keyof RoundCpu, number][]) {
    cpu[name] = Math.round(micros / 1000);
  }
  return { ms: result, cpu };
}

/** Each process's median CPU ms over several rounds. */
function medianCpu(rounds: readonly RoundCpu[]): RoundCpu {
  const cpu: RoundCpu = {};
  for (const name of ['scheduler', 'worker', 'sandbox', 'redis'] as const) {
    const values = rounds.flatMap((round) => (round[name] === undefined ? [] : [round[name]]));
    if (values.length > 0) cpu[name] = median(values);
  }
  return cpu;
}

/** Wallets that turn critical one by one: wallet k when XLM falls to $0.299 - k/1000 (debt set just so). */
async function riskyWallets(stack: Stack, registrations: Registrations): Promise<string[]> {
  const { scenario } = stack;
  const risky = stack.sandbox.control.setup.newAddresses(ALERTS);
  risky.forEach((user, k) => {
    const price = 0.299 - k / 1000;
    const debt = BigInt(Math.round(((712.5 * (price + 0.0005)) / 1.1) * 1e7));
    stack.sandbox.control.setup.openPosition(scenario.pool, {
      user,
      supplyCollateral: [{ asset: scenario.xlm, amount: 1000n * UNIT }],
      borrow: [{ asset: scenario.usdc, amount: debt }],
    });
  });
  await register(registrations, risky, 'critical', (k) => `risky${k}@example.com`);
  return risky;
}

/** 3. Each risky wallet in turn made critical: from the next ledger's close to its alert at the SMTP stand-in. */
async function alertLatency(stack: Stack, risky: readonly string[]) {
  const { sandbox, scenario } = stack;
  const latencies: number[] = [];
  for (let k = 0; k < risky.length; k += 1) {
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, BigInt(Math.round((0.299 - k / 1000) * 1e7)));
    sandbox.ledger.closeLedger();
    const closedAt = Date.now();
    const destination = `risky${k}@example.com`;
    const until = closedAt + 30_000;
    let mail = sandbox.channels.log.list({ channel: 'email', destination })[0];
    while (!mail && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      mail = sandbox.channels.log.list({ channel: 'email', destination })[0];
    }
    if (!mail) throw new Error(`no alert for risky wallet ${k}`);
    latencies.push(Date.parse(mail.receivedAt) - closedAt);
  }
  sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, 3_000_000n);
  const summary = {
    samples: latencies.length,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: Math.max(...latencies),
    pollMs: 500,
  };
  process.stdout.write(`alert latency: ${JSON.stringify(summary)}\n`);
  return summary;
}

/** 1. Cold and warm rounds at each size of SIZES (wallets added as it grows), 3. the alert latency at ALERT_AT. */
async function roundCurve(
  stack: Stack,
  registrations: Registrations,
  clock: RoundClock,
  pids: RoundPids,
  results: Record<string, unknown>,
) {
  const { sandbox, scenario } = stack;
  const reserves = sandbox.control.directory.pool(scenario.pool)?.reserves ?? [];
  const curve: Curve[] = [];
  const risky = await riskyWallets(stack, registrations);
  clock.watched = risky.length;
  const healthy = {
    collateral: new Map([[reserves.indexOf(scenario.xlm), 1000n * UNIT]]),
    liabilities: new Map([[reserves.indexOf(scenario.usdc), 100n * UNIT]]),
    supply: new Map<number, bigint>(),
  };
  for (const size of SIZES) {
    const added = sandbox.control.setup.newAddresses(size - clock.watched);
    sandbox.control.setup.seedPositions(scenario.pool, added, healthy);
    const registering = performance.now();
    await register(registrations, added, 'high');
    results[`registered${size}PerSecond`] = Math.round(added.length / ((performance.now() - registering) / 1000));
    clock.watched = size;
    await timedRound(clock);
    // Cold: nothing cached, every position read from the ledger.
    await clock.redis.del(`${PREFIX}:rms:positions:${scenario.pool}`);
    const coldFrom = process.hrtime.bigint() / 1000n;
    const cold = await measuredRound(clock, pids);
    // The monotonic clock CPU profiles use: the cold round's window in BENCH_CPU_PROF's profiles.
    if (PROFILE_DIR) process.stdout.write(`cold round ${size}: ${coldFrom}-${process.hrtime.bigint() / 1000n} µs\n`);
    const warm: number[] = [];
    const warmCpu: RoundCpu[] = [];
    const warmFrom = process.hrtime.bigint() / 1000n;
    for (let r = 0; r < ROUNDS; r += 1) {
      const round = await measuredRound(clock, pids);
      warm.push(round.ms);
      warmCpu.push(round.cpu);
    }
    if (PROFILE_DIR) process.stdout.write(`warm rounds ${size}: ${warmFrom}-${process.hrtime.bigint() / 1000n} µs\n`);
    curve.push({
      wallets: size,
      coldMs: cold.ms,
      coldCpuMs: cold.cpu,
      warmMedianMs: median(warm),
      warmMaxMs: Math.max(...warm),
      warmCpuMs: medianCpu(warmCpu),
    });
    process.stdout.write(
      `${size} wallets: cold ${cold.ms} ms (CPU ms ${JSON.stringify(cold.cpu)}), warm ${warm.join(', ')} ms ` +
        `(worker CPU ms ${warmCpu.map((cpu) => cpu.worker).join(', ')})\n`,
    );
    if (size === ALERT_AT) results['alertLatencyMs'] = await alertLatency(stack, risky);
  }
  return curve;
}

/** 2. Warm rounds at the largest size with one, then two worker processes. */
async function workerScaling(stack: Stack, clock: RoundClock) {
  const largest = SIZES[SIZES.length - 1];
  const oneWorker: number[] = [];
  for (let r = 0; r < ROUNDS; r += 1) oneWorker.push(await timedRound(clock));
  await stack.start('notifications', { role: 'worker' });
  await timedRound(clock);
  const twoWorkers: number[] = [];
  for (let r = 0; r < ROUNDS; r += 1) twoWorkers.push(await timedRound(clock));
  return {
    wallets: largest,
    oneWorkerMedianMs: median(oneWorker),
    twoWorkersMedianMs: median(twoWorkers),
    speedup: Math.round((median(oneWorker) / median(twoWorkers)) * 100) / 100,
    oneWorkerWalletsPerSecond: Math.round(largest / (median(oneWorker) / 1000)),
    twoWorkersWalletsPerSecond: Math.round(largest / (median(twoWorkers) / 1000)),
  };
}

/**
 * The monitor as real processes (`NODE_ENV=production`): an API process (registrations), the scheduler (role
 * `monitor`) and batch workers (role `worker`), on the test Redis, against the sandbox in this process with its
 * ledger closed by the bench:
 * 1. round duration at 1k / 10k / 50k watched wallets: cold (every position read from the ledger, 200 keys per
 *    getLedgerEntries) and warm (positions cached, re-priced at the round's prices);
 * 2. one worker process against two, warm rounds at the largest size;
 * 3. an oracle price change that makes a position critical, timed from the close of the ledger that follows it to
 *    the alert's email at the SMTP stand-in (ALERTS changes, each making one more wallet critical).
 */
async function main(): Promise<void> {
  const stack = await startBenchStack({
    apps: [],
    ledgerIntervalMs: 0,
    files: ['notifications'],
    env: {
      notifications: {
        NOTIFICATIONS_ENCRYPTION_KEY: 'ab'.repeat(32),
        NOTIFICATIONS_KEY_PREFIX: PREFIX,
        EMAIL_FROM: 'alerts@example.com',
        RMS_ROUND_TIMEOUT_MS: '120000',
        RMS_MONITOR_BATCH_SIZE: String(BATCH_SIZE),
        RMS_MONITOR_CONCURRENCY: String(CONCURRENCY),
      },
    },
  });
  const apiProcess = await stack.start('notifications', { role: 'api' });
  const monitor = await stack.start('notifications', {
    role: 'monitor',
    nodeArgs: profileFlags(PROFILE_DIR, 'monitor-scheduler'),
  });
  const worker = await stack.start('notifications', {
    role: 'worker',
    nodeArgs: profileFlags(PROFILE_DIR, 'monitor-worker'),
  });
  const api = new Pool(apiProcess.url, { connections: 32, keepAliveTimeout: 30_000 });
  const redis = new Redis(stack.redisUrl);
  const results: Record<string, unknown> = { cpus: cpus().length, cpu: cpus()[0]?.model };
  try {
    const clock: RoundClock = { sandbox: stack.sandbox, monitor, redis, watched: 0 };
    const pids = { scheduler: monitor.pid, worker: worker.pid, sandbox: process.pid, redis: await redisPid(redis) };
    const curve = await roundCurve(stack, { api, token: stack.internalToken }, clock, pids, results);
    results['scaling'] = await workerScaling(stack, clock);
    results['curve'] = curve;
    results['batch'] = { size: BATCH_SIZE, concurrency: CONCURRENCY };
    report(curve, results);
  } finally {
    await redis.quit();
    await api.close();
    await stack.close();
  }
}

function report(curve: Curve[], results: Record<string, unknown>): void {
  const cpu = ({ scheduler, worker, sandbox, redis }: RoundCpu) => `${scheduler} / ${worker} / ${sandbox} / ${redis}`;
  const rows = curve.map(
    (c) =>
      `| ${c.wallets} | ${c.coldMs} | ${cpu(c.coldCpuMs)} | ${c.warmMedianMs} | ${c.warmMaxMs} | ${cpu(c.warmCpuMs)} |`,
  );
  process.stdout.write(
    [
      '',
      '| watched wallets | cold round ms | cold round CPU ms: scheduler / worker / sandbox / Redis | warm round median ms | warm round max ms | warm round median CPU ms: scheduler / worker / sandbox / Redis |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
      JSON.stringify(results, null, 2),
      '',
    ].join('\n'),
  );
  const chart = writeChart(WORKSPACE_ROOT, 'notifications-monitor', {
    kind: 'line',
    title: 'Monitor round time against watched wallets (one worker process)',
    caption: machineCaption(),
    xLabel: 'watched wallets',
    yLabel: 'round duration, ms',
    xScale: 'log',
    series: [
      { name: 'cold (positions read from the ledger)', points: curve.map((c) => [c.wallets, c.coldMs]) },
      { name: `warm, median of ${ROUNDS}`, points: curve.map((c) => [c.wallets, c.warmMedianMs]) },
      { name: `warm, slowest of ${ROUNDS}`, points: curve.map((c) => [c.wallets, c.warmMaxMs]) },
    ],
  });
  if (chart) process.stdout.write(`chart: ${chart}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
