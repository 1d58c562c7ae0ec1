import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type LauncherState, WORKSPACE_ROOT, buyKey, freePort, trustSandbox } from '@rp/dev';

/** The demo wallet `npm run buy-key` pays from (a SEP-5 test vector, sandbox money only). */
const HEALTHY_DEMO_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const LOAD_REQUESTS = Number(process.env['BENCH_LOAD_REQUESTS'] ?? 3000);

/** Resident memory of a process in MB, from /proc (Linux), or `undefined` once it is gone. */
function residentMb(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

interface Started {
  launcher: ChildProcess;
  state: LauncherState;
  /** Milliseconds from spawning `npm start`'s script to its banner. */
  readyMs: number;
  /** What the banner says (the launcher's own clock, from its start). */
  bannerSeconds: number;
}

/** Runs `node tools/dev/bin/start.cjs` (what `npm start` runs) with its own ports and data folder. */
async function startSystem(dataDir: string, ports: Record<string, string>): Promise<Started> {
  const spawned = performance.now();
  const launcher = spawn(process.execPath, [join(WORKSPACE_ROOT, 'tools/dev/bin/start.cjs')], {
    cwd: WORKSPACE_ROOT,
    env: { ...process.env, ...ports, DEV_DATA_DIR: dataDir, DEV_LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const banner = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner in 120 s:\n${output.slice(-20).join('')}`)), 120_000);
    launcher.stdout?.on('data', (chunk: Buffer) => {
      output.push(chunk.toString());
      const ready = /all \d+ apps ready in ([\d.]+) s/.exec(chunk.toString());
      if (ready) {
        clearTimeout(timer);
        resolve(Number(ready[1]));
      }
    });
    launcher.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output.slice(-20).join('')}`)));
  });
  const readyMs = performance.now() - spawned;
  const state = JSON.parse(readFileSync(join(dataDir, 'launcher.json'), 'utf8')) as LauncherState;
  return { launcher, state, readyMs, bannerSeconds: banner };
}

async function stopSystem(started: Started): Promise<void> {
  const exited = new Promise((resolve) => started.launcher.once('exit', resolve));
  started.launcher.kill('SIGINT');
  await exited;
}

/** Every process `npm start` started, with its resident memory now. */
function snapshot(state: LauncherState): { name: string; mb: number }[] {
  const processes = [
    { name: 'launcher (npm start)', pid: state.pid },
    { name: 'sandbox', pid: state.sandbox.pid },
    ...state.apps.map((app) => ({ name: app.app, pid: app.pid })),
    ...(state.redis.pid ? [{ name: 'redis (started by the launcher)', pid: state.redis.pid }] : []),
  ];
  return processes.map(({ name, pid }) => ({ name, mb: residentMb(pid) ?? Number.NaN }));
}

/** A key bought over x402 from the demo wallet, then `LOAD_REQUESTS` calls through the gateway, 16 at a time. */
async function load(state: LauncherState): Promise<void> {
  const gateway = state.apps.find((app) => app.app === 'gateway')?.url ?? '';
  const sandbox = state.sandbox.url;
  trustSandbox();
  const tlsPort = Number(process.env['SANDBOX_TLS_PORT']);
  const { grant } = await buyKey({
    gatewayUrl: gateway,
    rpcUrl: `https://127.0.0.1:${tlsPort}/rpc`,
    mnemonic: HEALTHY_DEMO_MNEMONIC,
    email: 'memory-bench@example.com',
  });
  let sent = 0;
  const worker = async () => {
    while (sent < LOAD_REQUESTS) {
      sent += 1;
      const path =
        sent % 10 === 0 ? '/api/v1/keys/subscribe/status?email=memory-bench%40example.com' : '/api/v1/keys/me';
      const response = await fetch(`${gateway}${path}`, { headers: { authorization: `Bearer ${grant.apiKey}` } });
      await response.arrayBuffer();
      if (response.status !== 200 && response.status !== 429) throw new Error(`${path} answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  await fetch(`${sandbox}/control/state`).then((response) => response.arrayBuffer());
}

function table(after: { name: string; mb: number }[], loaded: { name: string; mb: number }[]): string {
  const total = (rows: { mb: number }[]) => rows.reduce((sum, row) => sum + row.mb, 0);
  return [
    '| process | after ready (MB) | after the load (MB) |',
    '|---|---|---|',
    ...after.map((row, i) => `| ${row.name} | ${row.mb.toFixed(1)} | ${loaded[i]?.mb.toFixed(1)} |`),
    `| **total** | **${total(after).toFixed(1)}** | **${total(loaded).toFixed(1)}** |`,
  ].join('\n');
}

/**
 * `npm start` as a new user runs it: time to ready with fresh data folders (and again on the folders the first run
 * left), then the resident memory of every process it started, after ready and after a key purchase and
 * `LOAD_REQUESTS` calls through the gateway. Targets (issue 9): total <= 1.0 GB, every app <= 200 MB, the agent
 * <= 150 MB, ready <= 8 s.
 */
async function main(): Promise<void> {
  const ports: Record<string, string> = {};
  for (const name of [
    'GATEWAY_PORT',
    'SUBSCRIPTION_PORT',
    'TXB_PORT',
    'NOTIFICATIONS_PORT',
    'AGENT_PORT',
    'SANDBOX_PORT',
    'SANDBOX_TLS_PORT',
    'SANDBOX_SMTP_PORT',
  ]) {
    ports[name] = String(await freePort());
  }
  process.env['SANDBOX_TLS_PORT'] = ports['SANDBOX_TLS_PORT'];
  const dataDir = mkdtempSync(join(tmpdir(), 'rp-memory-bench-'));
  try {
    const fresh = await startSystem(dataDir, ports);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const afterReady = snapshot(fresh.state);
    await load(fresh.state);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const afterLoad = snapshot(fresh.state);
    await stopSystem(fresh);
    if (!existsSync(dataDir)) throw new Error('the data folder vanished');
    const again = await startSystem(dataDir, ports);
    await stopSystem(again);

    const total = afterReady.reduce((sum, row) => sum + row.mb, 0);
    process.stdout.write(`\nmachine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}\n\n`);
    process.stdout.write(`${table(afterReady, afterLoad)}\n\n`);
    process.stdout.write(
      [
        '| measurement | value |',
        '|---|---|',
        `| npm start to ready, fresh data folders (banner / wall clock) | ${fresh.bannerSeconds.toFixed(1)} s / ${(fresh.readyMs / 1000).toFixed(1)} s (target <= 8 s) |`,
        `| npm start to ready, data folders kept (banner / wall clock) | ${again.bannerSeconds.toFixed(1)} s / ${(again.readyMs / 1000).toFixed(1)} s |`,
        `| total resident memory after ready | ${total.toFixed(0)} MB (target <= 1000 MB) |`,
        `| largest app after ready | ${Math.max(...afterReady.filter((r) => !['sandbox', 'launcher (npm start)'].includes(r.name)).map((r) => r.mb)).toFixed(0)} MB (target <= 200 MB) |`,
        `| agent after ready | ${afterReady.find((r) => r.name === 'agent')?.mb.toFixed(0)} MB (target <= 150 MB) |`,
      ].join('\n') + '\n',
    );
    process.stdout.write(
      `${JSON.stringify({ afterReady, afterLoad, readyMs: fresh.readyMs, bannerSeconds: fresh.bannerSeconds, warmReadyMs: again.readyMs })}\n`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
