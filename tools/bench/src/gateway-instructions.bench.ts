import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP_NODE_FLAGS, WORKSPACE_ROOT, freePort } from '@rp/dev';
import { Pool } from 'undici';
import { benchPartner, startBenchStack } from './bench-stack';

/**
 * Instructions per call of the floor and of the gateway, counted by an instruction-level simulator (valgrind's
 * callgrind) rather than timed: the count of a warm process's calls hardly depends on what else runs on the machine,
 * so two variants of the gateway compare on a shared machine where throughput and CPU time do not. Each proxy runs
 * alone under the simulator (about 50 times slower), in front of the same service running natively; `WARMUP` calls
 * at `CONCURRENCY` are left uncounted (V8 optimises), then counting is switched on for `CALLS` calls and off again.
 * Everything the process does in that window is counted: its JavaScript, node's HTTP server, undici, V8's compilers
 * and garbage collection (every thread; the simulator runs them one at a time).
 *   BENCH_CALLS (3000), BENCH_WARMUP (5000), BENCH_CONCURRENCY (16), BENCH_TARGETS (floor,gateway),
 *   BENCH_GATEWAY_NODE_FLAGS / BENCH_FLOOR_NODE_FLAGS (space-separated node flags of the simulated process).
 */
const CALLS = Number(process.env['BENCH_CALLS'] ?? 3000);
const WARMUP = Number(process.env['BENCH_WARMUP'] ?? 5000);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
const TARGETS = (process.env['BENCH_TARGETS'] ?? 'floor,gateway').split(',');
const PATH = '/api/v1/keys/me';
/** Where the simulator and its control meet (the apps' environment may name another temporary folder). */
const VGDB_PREFIX = join(tmpdir(), 'vgdb-pipe');
const flagsOf = (name: string) => (process.env[name] ?? '').split(' ').filter((flag) => flag !== '');

/** `calls` GETs of `PATH`, `CONCURRENCY` at a time, each answered 200. */
async function drive(pool: Pool, calls: number, headersFor: () => Record<string, string>): Promise<void> {
  let left = calls;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left > 0) {
        left -= 1;
        const answer = await pool.request({ method: 'GET', path: PATH, headers: headersFor() });
        const body = await answer.body.text();
        if (answer.statusCode !== 200) throw new Error(`${PATH} answered ${answer.statusCode}: ${body}`);
      }
    }),
  );
}

/** Calls the gateway forwarded on its fast path (ADR 030), from its `/metrics` (read outside the counted window). */
async function fastPathCalls(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^gateway_fast_path_total(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0);
}

/** Starts `args` (node and its script) under callgrind with counting off; resolves once `url` answers. */
async function simulated(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  url: string,
): Promise<{ child: ChildProcess; out: string; env: NodeJS.ProcessEnv }> {
  const out = join(tmpdir(), `callgrind-${name}-${process.pid}.out`);
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}`,
      `--vgdb-prefix=${VGDB_PREFIX}`,
      process.execPath,
      ...args,
    ],
    { cwd: WORKSPACE_ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  for (let i = 0; i < 600; i += 1) {
    // Another process on the port (it was free when chosen) answers too: the simulated one must still be running.
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited under the simulator`);
    const up = await fetch(`${url}/health/live`).then(
      (r) => r.ok,
      () => false,
    );
    if (up && child.exitCode === null) return { child, out, env };
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${name} did not start under the simulator`);
}

/** Instructions the process executed while counting was on, from its profile's totals. */
async function countedInstructions(child: ChildProcess, out: string): Promise<number> {
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
  const totals = /^totals: (\d+)/m.exec(readFileSync(out, 'utf8'));
  return Number(totals?.[1] ?? NaN);
}

/** Switches counting on or off; `env` is the process's (the simulator names its control channel by `HOST`). */
function counting(child: ChildProcess, on: boolean, env: NodeJS.ProcessEnv): void {
  const said = execFileSync(
    'callgrind_control',
    [`--vgdb-prefix=${VGDB_PREFIX}`, '-i', on ? 'on' : 'off', String(child.pid)],
    { encoding: 'utf8', env: { ...process.env, HOST: env['HOST'] } },
  );
  if (!said.includes('OK.')) throw new Error(`callgrind_control did not switch counting ${on ? 'on' : 'off'}: ${said}`);
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ apps: ['subscription', 'gateway'], ledgerIntervalMs: 1000 });
  try {
    const { apiKey, signedGet: signed } = await benchPartner(stack, PATH);
    // The simulated gateway runs with the stack's gateway's own settings, on a port of its own.
    const gatewayPid = stack.app('gateway').pid as number;
    const gatewayEnv = Object.fromEntries(
      readFileSync(`/proc/${gatewayPid}/environ`, 'utf8')
        .split('\0')
        .filter((entry) => entry.includes('='))
        .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)])
        // Not the stack's channel to its own child.
        .filter(([name]) => !name.startsWith('NODE_CHANNEL_')),
    );
    const results: string[] = [];
    for (const target of TARGETS) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const isGateway = target === 'gateway';
      const { child, out, env } = isGateway
        ? await simulated(
            'gateway',
            // The gateway's own flags (ADR 037), as everywhere it runs, then the bench's.
            [
              ...(APP_NODE_FLAGS['gateway'] ?? []),
              ...flagsOf('BENCH_GATEWAY_NODE_FLAGS'),
              join(WORKSPACE_ROOT, 'tools/dev/bin/run-app.cjs'),
              'gateway',
            ],
            // A cached key stays fresh for the whole run: at the simulator's pace its 5 s would pass every few hundred
            // calls, and each refresh would send the calls of that moment through Fastify.
            { ...gatewayEnv, PORT: String(port), KEY_CACHE_TTL_MS: '3600000' },
            url,
          )
        : await simulated(
            'floor',
            [
              ...flagsOf('BENCH_FLOOR_NODE_FLAGS'),
              join(WORKSPACE_ROOT, 'tools/bench/bin/floor-proxy.cjs'),
              stack.app('subscription').url,
              String(port),
            ],
            process.env,
            url,
          );
      const pool = new Pool(url, { connections: CONCURRENCY, keepAliveTimeout: 600_000 });
      const headersFor = isGateway ? () => ({ authorization: `Bearer ${apiKey}` }) : signed;
      await drive(pool, WARMUP, headersFor);
      const fastBefore = isGateway ? await fastPathCalls(url) : 0;
      counting(child, true, env);
      await drive(pool, CALLS, headersFor);
      counting(child, false, env);
      const fast = isGateway ? `, ${(await fastPathCalls(url)) - fastBefore} on the fast path` : '';
      await pool.close();
      const instructions = await countedInstructions(child, out);
      results.push(`| ${target} | ${CALLS} | ${(instructions / CALLS / 1000).toFixed(1)} |`);
      process.stdout.write(`${target}: ${instructions} instructions over ${CALLS} calls${fast}\n`);
    }
    process.stdout.write(
      ['', '| process | calls counted | thousand instructions per call |', '|---|---|---|', ...results, ''].join(
        '\n',
      ),
    );
  } finally {
    await stack.close();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
