import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { type Stack, WORKSPACE_ROOT, freePort } from '@rp/dev';
import { type PaymentRequired, createExactPayment, encodeX402Header } from '@rp/ledger';
import { Pool } from 'undici';
import { benchPartner, profileFlags, startBenchStack } from './bench-stack';
import { profileTable, summariseProfile } from './cpu-profile';
import { cpuDuring } from './process-cpu';
import { type Round, type Target, gcBetween, gcCounts, perCall, roundReport, turnOrder } from './gateway-round';
import { measure } from './stats';
import { machineCaption, writeChart } from './svg-chart';

const RUNS = Number(process.env['BENCH_ROUNDS'] ?? 2000);
/**
 * Seconds of throughput per target and round: 10 one-second turns each (5 before 2026-11-26 15:40 UTC). One turn's
 * rate moves by several percent with the machine; ten of them average that out better than five, and an even number
 * gives each order of `turnOrder` equally often.
 */
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
const REPEATS = Number(process.env['BENCH_REPEATS'] ?? 2);
/**
 * The throughput phase gives each target `SECONDS` in slices of this many seconds, the targets taking turns (floor,
 * gateway, floor, gateway, ...), so a drift in the machine's speed during the phase falls on every target alike
 * instead of on whichever ran in the slow seconds. `BENCH_SLICE_SECONDS` equal to `BENCH_SECONDS` is one window per
 * target, one after another: the measurement before 2026-11-26 13:15 UTC (5 s each).
 */
const SLICE_SECONDS = Math.min(Number(process.env['BENCH_SLICE_SECONDS'] ?? 1), SECONDS);
/**
 * Untimed load on every target before the rounds: V8 keeps optimising a Node server for thousands of calls (the
 * gateway's CPU per call falls by half over its first ~20,000), and a gateway runs warm.
 */
const WARMUP_SECONDS = Number(process.env['BENCH_WARMUP_SECONDS'] ?? 8);
/** Keys bought at the end (verify + settle + key); 0 skips the purchases. */
const PURCHASES = Number(process.env['BENCH_PURCHASES'] ?? 10);
/** Write V8 CPU profiles of the gateway and the service here, and summarise where a request's time goes. */
const PROFILE_DIR = process.env['BENCH_CPU_PROF'];
const PATH = '/api/v1/keys/me';
/**
 * `BENCH_WITHOUT_FAST_PATH=1`: a second gateway with `FORWARD_FAST_PATH=false` (ADR 030) is measured in the same
 * rounds, interleaved with the others, so the fast path's saving is read under the same load.
 */
const WITHOUT_FAST_PATH = process.env['BENCH_WITHOUT_FAST_PATH'] === '1';
/**
 * `BENCH_TWIN_GATEWAY=1`: a second gateway of the same build and settings, started the same way, is measured in the
 * same rounds: what two identical gateway processes differ by is the bench's own repeatability (the spread no code
 * change can move), reported as twin / gateway.
 */
const TWIN_GATEWAY = process.env['BENCH_TWIN_GATEWAY'] === '1';
/**
 * `BENCH_FLOOR_NODE_FLAGS` / `BENCH_GATEWAY_NODE_FLAGS`: node flags (space-separated) added to the floor's / the
 * gateways' command line, on top of what the gateway starts with everywhere (`APP_NODE_FLAGS`): e.g. give the floor
 * the gateway's young-generation size to compare like with like.
 */
const FLOOR_NODE_FLAGS = nodeFlags(process.env['BENCH_FLOOR_NODE_FLAGS']);
const GATEWAY_NODE_FLAGS = nodeFlags(process.env['BENCH_GATEWAY_NODE_FLAGS']);
/** Untimed calls before each target's sequential ones (counted in its CPU per sequential call). */
const SEQUENTIAL_WARMUP = 200;

function nodeFlags(value: string | undefined): string[] {
  return (value ?? '').split(' ').filter((flag) => flag !== '');
}

/** The floor: a bare keep-alive pass-through proxy process in front of the same service (tools/bench/bin). */
async function startFloor(target: string): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...FLOOR_NODE_FLAGS,
      ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, '--cpu-prof-name=floor.cpuprofile'] : []),
      join(WORKSPACE_ROOT, 'tools/bench/bin/floor-proxy.cjs'),
      target,
      String(port),
    ],
    {
      stdio: 'inherit',
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i += 1) {
    const up = await fetch(`${url}/health/live`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { url, process: child };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the floor proxy did not start');
}

/** Requests completed per second by `concurrency` loops calling `task` back to back for `seconds`. */
async function throughput(seconds: number, concurrency: number, task: () => Promise<unknown>): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await task();
        done += 1;
      }
    }),
  );
  return done / seconds;
}

/** A GET through a keep-alive undici pool: the same cheap client for every target. */
function caller(base: string, headersFor: () => Record<string, string>): () => Promise<void> {
  const pool = new Pool(base, { connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  return async () => {
    const answer = await pool.request({ method: 'GET', path: PATH, headers: headersFor() });
    const body = await answer.body.text();
    if (answer.statusCode !== 200) throw new Error(`${base}${PATH} answered ${answer.statusCode}: ${body}`);
  };
}

/** Requests a process has answered, from its own `/metrics`. */
async function requestsServed(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return [...text.matchAll(/^http_request_duration_seconds_count\{[^}]*\} (\d+)/gm)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );
}

/** Calls the gateway forwarded on its fast path (ADR 030), from its own `/metrics`. */
async function fastPathCalls(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^gateway_fast_path_total(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0);
}

/** Buys `PURCHASES` keys through the gateway, each from a fresh funded wallet; ms of each paid POST, sorted. */
async function timePurchases(stack: Stack): Promise<number[]> {
  const url = `${stack.api.url}/keys/subscribe`;
  const challenge = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'buyer@example.com' }),
  });
  const required = JSON.parse(
    Buffer.from(challenge.headers.get('payment-required') ?? '', 'base64').toString(),
  ) as PaymentRequired;
  const purchases: number[] = [];
  for (let i = 0; i < PURCHASES; i += 1) {
    const { wallet: payer } = stack.wallet({ usdc: 2_026_000n }, 'bench buyer');
    const payment = await createExactPayment({ ledger: stack.ledger, payer, requirements: required.accepts[0] });
    const started = performance.now();
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-PAYMENT-SIGNATURE': encodeX402Header(payment) },
      body: JSON.stringify({ email: `buyer-${i}@example.com` }),
    });
    await answer.arrayBuffer();
    if (answer.status !== 200) throw new Error(`purchase answered ${answer.status}`);
    purchases.push(performance.now() - started);
  }
  return purchases.sort((a, b) => a - b);
}

const TARGETS: readonly Target[] = [
  'direct',
  'floor',
  'gateway',
  ...(WITHOUT_FAST_PATH ? ['slowGateway' as const] : []),
  ...(TWIN_GATEWAY ? ['twinGateway' as const] : []),
];
type Targets = Partial<Record<Target, () => Promise<void>>>;
const NAMES: Record<Target, string> = {
  direct: 'direct to subscription',
  floor: 'through the floor proxy',
  gateway: 'through the gateway',
  slowGateway: 'through a gateway without the fast path',
  twinGateway: 'through a second, identical gateway',
};

/** The three ways to the same route: the service with the gateway's signed identity, the floor, the gateway. */
async function callTargets(
  stack: Stack,
  floorUrl: string,
  slowGatewayUrl?: string,
  twinGatewayUrl?: string,
): Promise<Targets> {
  const { apiKey, signedGet: signed } = await benchPartner(stack, PATH);
  // Each further gateway calls with a partner key of its own: sharing one, two gateways' calls would together pass
  // the key's limit within a run (100,000 a minute) and be refused.
  const keyed = async (url: string) => {
    const own = (await benchPartner(stack, PATH)).apiKey;
    return caller(url, () => ({ authorization: `Bearer ${own}` }));
  };
  return {
    direct: caller(stack.app('subscription').url, signed),
    floor: caller(floorUrl, signed),
    gateway: caller(stack.app('gateway').url, () => ({ authorization: `Bearer ${apiKey}` })),
    ...(slowGatewayUrl && { slowGateway: await keyed(slowGatewayUrl) }),
    ...(twinGatewayUrl && { twinGateway: await keyed(twinGatewayUrl) }),
  };
}

/** `REPEATS` rounds, the targets interleaved in each: latency one call after another, then throughput. */
async function measureRounds(
  targets: Targets,
  pids: Partial<Record<Target, number>>,
  gatewayUrl: string,
): Promise<Round[]> {
  const rounds: Round[] = [];
  const service = pids.direct;
  for (let r = 0; r < REPEATS; r += 1) {
    const gcBefore = await gcCounts(gatewayUrl);
    const latency = {} as Round['latency'];
    const rps = {} as Round['rps'];
    const cpuPerCall = {} as Round['cpuPerCall'];
    const cpuPerSequentialCall = {} as Round['cpuPerSequentialCall'];
    for (const target of TARGETS) {
      const { result, cpuMicros } = await cpuDuring({ process: pids[target], service }, () =>
        measure(`GET ${PATH}, ${NAMES[target]}`, RUNS, targets[target] as () => Promise<void>, SEQUENTIAL_WARMUP),
      );
      latency[target] = result;
      cpuPerSequentialCall[target] = perCall(cpuMicros, RUNS + SEQUENTIAL_WARMUP);
    }
    const sliced = await slicedThroughput(targets, pids);
    for (const target of TARGETS) {
      rps[target] = sliced[target].calls / SECONDS;
      cpuPerCall[target] = perCall(sliced[target].cpu, sliced[target].calls);
    }
    const gatewayGc = gcBetween(gcBefore, await gcCounts(gatewayUrl));
    rounds.push({ latency, rps, cpuPerCall, cpuPerSequentialCall, gatewayGc });
  }
  return rounds;
}

/** Each target's calls and CPU over `SECONDS`, measured in `SLICE_SECONDS` slices, the targets taking turns. */
async function slicedThroughput(targets: Targets, pids: Partial<Record<Target, number>>) {
  const totals = Object.fromEntries(
    TARGETS.map((target) => [target, { calls: 0, cpu: { process: 0, service: 0 } as Record<string, number> }]),
  ) as Record<Target, { calls: number; cpu: { process?: number; service?: number } }>;
  const slices = Math.round(SECONDS / SLICE_SECONDS);
  for (let slice = 0; slice < slices; slice += 1) {
    for (const target of turnOrder(TARGETS, slice)) {
      const { result, cpuMicros } = await cpuDuring({ process: pids[target], service: pids.direct }, () =>
        throughput(SECONDS / slices, CONCURRENCY, targets[target] as () => Promise<void>),
      );
      const total = totals[target];
      total.calls += result * (SECONDS / slices);
      for (const part of ['process', 'service'] as const) {
        const micros = cpuMicros[part];
        total.cpu[part] = micros === undefined || total.cpu[part] === undefined ? undefined : total.cpu[part] + micros;
      }
    }
  }
  return totals;
}

/**
 * What the gateway costs an authenticated call (key lookup from its cache, a token from the replica's lease of the
 * shared Redis bucket, signing, forwarding) against the same route of the subscription service called directly with the gateway's signed
 * identity, and against the floor: a bare keep-alive pass-through proxy in front of the same service. The three are
 * measured interleaved, `REPEATS` rounds, because the machine is noisy. Then how long buying a key takes on the
 * sandbox (verify + settle + record + issue).
 */
async function main(): Promise<void> {
  const profiled = {
    subscription: profileFlags(PROFILE_DIR, 'subscription'),
    gateway: [...GATEWAY_NODE_FLAGS, ...profileFlags(PROFILE_DIR, 'gateway')],
  };
  const stack = await startBenchStack({
    apps: ['subscription', 'gateway'],
    ledgerIntervalMs: 1000,
    nodeArgs: profiled,
  });
  const floor = await startFloor(stack.app('subscription').url);
  try {
    const slowGateway = WITHOUT_FAST_PATH
      ? await stack.start('gateway', { env: { FORWARD_FAST_PATH: 'false' } })
      : undefined;
    const twinGateway = TWIN_GATEWAY ? await stack.start('gateway') : undefined;
    const targets = await callTargets(stack, floor.url, slowGateway?.url, twinGateway?.url);
    for (const target of TARGETS) await throughput(WARMUP_SECONDS, CONCURRENCY, targets[target] as () => Promise<void>);
    // A profile then describes the warm processes only.
    const loadFrom = performance.now();
    const rounds = await measureRounds(
      targets,
      {
        direct: stack.app('subscription').pid,
        floor: floor.process.pid,
        gateway: stack.app('gateway').pid,
        slowGateway: slowGateway?.pid,
        twinGateway: twinGateway?.pid,
      },
      stack.app('gateway').url,
    );
    const served = {
      gateway: await requestsServed(stack.app('gateway').url),
      subscription: await requestsServed(stack.app('subscription').url),
      gatewayFastPath: await fastPathCalls(stack.app('gateway').url),
    };
    // A profile covers the calls above only; purchases would add the facilitator's work to it.
    const purchases = PROFILE_DIR || PURCHASES <= 0 ? [] : await timePurchases(stack);
    report(rounds, purchases, served);
    if (PROFILE_DIR) await printProfiles(PROFILE_DIR, stack, served, loadFrom);
  } finally {
    floor.process.kill('SIGTERM');
    await stack.close();
  }
}

function report(rounds: Round[], purchases: number[], served: Record<string, number>): void {
  process.stdout.write(`\nmachine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}\n\n`);
  rounds.forEach((round, i) =>
    process.stdout.write(
      `${roundReport(round, i, { concurrency: CONCURRENCY, seconds: SECONDS, sliceSeconds: SLICE_SECONDS })}\n\n`,
    ),
  );
  if (purchases.length > 0)
    process.stdout.write(
      [
        '| purchase (verify + settle + key), ledger closes every 1 s | value |',
        '|---|---|',
        `| median of ${purchases.length} | ${purchases[Math.floor((purchases.length - 1) / 2)].toFixed(0)} ms |`,
        `| slowest of ${purchases.length} | ${purchases[purchases.length - 1].toFixed(0)} ms |`,
      ].join('\n') + '\n',
    );
  process.stdout.write(
    `gateway: ${served['gatewayFastPath']} of ${served['gateway']} calls on the fast path (ADR 030)\n`,
  );
  process.stdout.write(`${JSON.stringify({ rounds, purchasesMs: purchases, served })}\n`);
  // The chart: the last round's latency percentiles (every call of the run answered 200: any other aborts it).
  const last = rounds[rounds.length - 1];
  const chart = writeChart(WORKSPACE_ROOT, 'gateway', {
    kind: 'bar',
    title: `GET ${PATH} latency (${RUNS} calls); gateway / floor throughput ${((last.rps.gateway / last.rps.floor) * 100).toFixed(1)} %`,
    caption: `${machineCaption()}, round ${rounds.length} of ${rounds.length}`,
    yLabel: 'ms',
    categories: ['p50', 'p90', 'p99', 'p99.9'],
    series: TARGETS.map((t) => ({
      name: NAMES[t],
      values: [last.latency[t].medianMs, last.latency[t].p90Ms, last.latency[t].p99Ms, last.latency[t].p999Ms],
    })),
  });
  if (chart) process.stdout.write(`chart: ${chart}\n`);
}

/** Stops the profiled processes (the profile is written on exit) and prints where a request's time went. */
async function printProfiles(
  dir: string,
  stack: Stack,
  served: Record<'gateway' | 'subscription', number>,
  loadFrom: number,
) {
  const apps = [stack.app('gateway'), stack.app('subscription')];
  await Promise.all(apps.map((app) => app.stop()));
  for (const app of apps) {
    const name = app.app as 'gateway' | 'subscription';
    const summary = summariseProfile(join(dir, `${name}.cpuprofile`), loadFrom - app.spawnedAt);
    process.stdout.write(`\n${profileTable(name, summary, served[name])}\n`);
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
