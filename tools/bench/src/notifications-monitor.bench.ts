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

/**
 * How often the bench asks the scheduler whether the round is over. Its answer (`/metrics`, the histogram's sum) is
 * exact whenever it is read; asking every 20 ms cost the scheduler more CPU than the round's own work at 50k.
 */
const ROUND_POLL_MS = 100;

/** Closes a ledger and waits for the round it starts; its duration in ms (as the scheduler measured it). */
async function timedRound(sandbox: RunningSandbox, monitor: AppProcess): Promise<number> {
  const before = await roundMetrics(monitor);
  sandbox.ledger.closeLedger();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, ROUND_POLL_MS));
    const after = await roundMetrics(monitor);
    if (after.count > before.count) return Math.round((after.sum - before.sum) * 1000);
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
}

/** The processes a round runs in: the scheduler, the (first) worker, this process (the sandbox) and Redis. */
interface RoundProcesses {
  monitor: AppProcess;
  pids: Record<keyof RoundCpu, number | undefined>;
}

/** Redis's own pid (it runs on this machine), for its share of a round's CPU. */
async function redisPid(redis: Redis): Promise<number | undefined> {
  const pid = /^process_id:(\d+)/m.exec(await redis.info('server'))?.[1];
  return pid === undefined ? undefined : Number(pid);
}

/** A round timed as `timedRound`, with the CPU ms each process used meanwhile. */
async function measuredRound(sandbox: RunningSandbox, round: RoundProcesses): Promise<{ ms: number; cpu: RoundCpu }> {
  const { result, cpuMicros } = await cpuDuring(round.pids, () => timedRound(sandbox, round.monitor));
  const cpu: RoundCpu = {};
  for (const [name, micros] of Object.entries(cpuMicros) as [keyof RoundCpu, number][]) {
    cpu[name] = Math.round(micros / 1000);
  }
  return { ms: result, cpu };
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
  processes: { monitor: AppProcess; worker: AppProcess },
  results: Record<string, unknown>,
) {
  const { sandbox, scenario } = stack;
  const { monitor } = processes;
  const reserves = sandbox.control.directory.pool(scenario.pool)?.reserves ?? [];
  const redis = new Redis(stack.redisUrl);
  const curve: Curve[] = [];
  try {
    const round: RoundProcesses = {
      monitor,
      pids: {
        scheduler: monitor.pid,
        worker: processes.worker.pid,
        sandbox: process.pid,
        redis: await redisPid(redis),
      },
    };
    const risky = await riskyWallets(stack, registrations);
    let watched = risky.length;
    const healthy = {
      collateral: new Map([[reserves.indexOf(scenario.xlm), 1000n * UNIT]]),
      liabilities: new Map([[reserves.indexOf(scenario.usdc), 100n * UNIT]]),
      supply: new Map<number, bigint>(),
    };
    for (const size of SIZES) {
      const added = sandbox.control.setup.newAddresses(size - watched);
      sandbox.control.setup.seedPositions(scenario.pool, added, healthy);
      const registering = performance.now();
      await register(registrations, added, 'high');
      results[`registered${size}PerSecond`] = Math.round(added.length / ((performance.now() - registering) / 1000));
      watched = size;
      await timedRound(sandbox, monitor);
      // Cold: nothing cached, every position read from the ledger.
      await redis.del(`${PREFIX}:rms:positions:${scenario.pool}`);
      const cold = await measuredRound(sandbox, round);
      const warm: number[] = [];
      for (let r = 0; r < ROUNDS; r += 1) warm.push(await timedRound(sandbox, monitor));
      curve.push({
        wallets: size,
        coldMs: cold.ms,
        coldCpuMs: cold.cpu,
        warmMedianMs: median(warm),
        warmMaxMs: Math.max(...warm),
      });
      process.stdout.write(
        `${size} wallets: cold ${cold.ms} ms (CPU ms ${JSON.stringify(cold.cpu)}), warm ${warm.join(', ')} ms\n`,
      );
      if (size === ALERT_AT) results['alertLatencyMs'] = await alertLatency(stack, risky);
    }
  } finally {
    await redis.quit();
  }
  return curve;
}

/** 2. Warm rounds at the largest size with one, then two worker processes. */
async function workerScaling(stack: Stack, monitor: AppProcess) {
  const largest = SIZES[SIZES.length - 1];
  const oneWorker: number[] = [];
  for (let r = 0; r < ROUNDS; r += 1) oneWorker.push(await timedRound(stack.sandbox, monitor));
  await stack.start('notifications', { role: 'worker' });
  await timedRound(stack.sandbox, monitor);
  const twoWorkers: number[] = [];
  for (let r = 0; r < ROUNDS; r += 1) twoWorkers.push(await timedRound(stack.sandbox, monitor));
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
  const results: Record<string, unknown> = { cpus: cpus().length, cpu: cpus()[0]?.model };
  try {
    const curve = await roundCurve(stack, { api, token: stack.internalToken }, { monitor, worker }, results);
    results['scaling'] = await workerScaling(stack, monitor);
    results['curve'] = curve;
    report(curve, results);
  } finally {
    await api.close();
    await stack.close();
  }
}

function report(curve: Curve[], results: Record<string, unknown>): void {
  const cpu = ({ scheduler, worker, sandbox, redis }: RoundCpu) => `${scheduler} / ${worker} / ${sandbox} / ${redis}`;
  const rows = curve.map(
    (c) => `| ${c.wallets} | ${c.coldMs} | ${cpu(c.coldCpuMs)} | ${c.warmMedianMs} | ${c.warmMaxMs} |`,
  );
  process.stdout.write(
    [
      '',
      '| watched wallets | cold round ms | cold round CPU ms: scheduler / worker / sandbox / Redis | warm round median ms | warm round max ms |',
      '|---|---|---|---|---|',
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
