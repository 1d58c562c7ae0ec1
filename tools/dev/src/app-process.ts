import { ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { createLogFormatter } from './log-format';

/** The workspace: the nearest folder up from here with nx.json (this file also runs compiled, from dist/dev). */
export const WORKSPACE_ROOT = (() => {
  let dir = __dirname;
  while (!existsSync(join(dir, 'nx.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no nx.json above ${__dirname}`);
    dir = parent;
  }
  return dir;
})();
const RUN_APP = join(WORKSPACE_ROOT, 'tools/dev/bin/run-app.cjs');
/** When set, every app's raw output is also appended to `<dir>/<app>-<port>.log` (for reading a failed test). */
const LOG_DIR = process.env['RP_APP_LOG_DIR'];

/**
 * Node flags an app runs with wherever it is started (launcher, tests, benches; the Helm chart and the compose file
 * set the same). The agent's budget is 150 MB, its target 100 MB after an hour (issue 17), and on Node 24 it took
 * 125-145 MB with the first flag alone (docs/benchmarks.md):
 * - `--max-semi-space-size=2`: a 2 MB young generation semi-space instead of 16 MB keeps about 25 MB (ADR 013); its
 *   allocation rate is low, so the extra scavenges cost nothing measurable;
 * - `--disable-optimizing-compilers`: no Maglev, no TurboFan (the interpreter and Sparkplug remain, WebAssembly too):
 *   no optimized code, none of the compilers' memory, fewer pages of the `node` binary touched. The agent waits on
 *   the network, not on the CPU; its presigned send stays within 50 ms;
 * - `--memory-saver-mode` and `--optimize-for-size`: V8 sizes and collects its heap for memory, not speed.
 * V8 takes the last three on the command line only (NODE_OPTIONS refuses them).
 *
 * The gateway runs with `--no-allocation-site-pretenuring` (ADR 037, on the command line: NODE_OPTIONS refuses it).
 * V8 allocates an object straight in the old generation once most objects of its allocation site survived a
 * scavenge; in about half of the gateway's processes that guess fell on per-call objects during warm-up, after which
 * every call's garbage went to the old generation: a mark-compact every few seconds, 14 ms scavenges, and 40-60 µs
 * more CPU per forwarded call for the life of the process. Everything the gateway allocates per call dies with the
 * call, so it never gains from the guess.
 */
export const APP_NODE_FLAGS: Readonly<Record<string, readonly string[]>> = {
  agent: ['--max-semi-space-size=2', '--disable-optimizing-compilers', '--memory-saver-mode', '--optimize-for-size'],
  gateway: ['--no-allocation-site-pretenuring'],
};

export interface AppProcessOptions {
  app: string;
  port: number;
  env: Record<string, string | undefined>;
  /** Each output line, already prefixed; the launcher prints them, tests keep them. */
  onLine?: (line: string) => void;
  /** Pretty-print JSON log lines (the launcher) or keep them raw (tests read them). */
  pretty?: boolean;
  /** Colours in pretty lines (the launcher: only when its output is a terminal). */
  colorize?: boolean;
  /** Name to prefix lines with; the app name by default. */
  label?: string;
  /** Script to run instead of `run-app.cjs <app>` (the sandbox has its own). */
  script?: string;
  /** Path answering 200 once the process is ready; `/health/ready` by default. */
  readyPath?: string;
  /** Options for node itself, before the script (`--cpu-prof`, which NODE_OPTIONS does not accept). */
  nodeArgs?: string[];
}

/**
 * One app as a child process, run from source. It gets its own process group (the launcher decides when it
 * stops, not the terminal) and an IPC channel: if the launcher dies, the app notices and stops itself.
 */
export class AppProcess {
  readonly app: string;
  readonly port: number;
  readonly url: string;
  readonly lines: string[] = [];
  /** `performance.now()` when the process was spawned (a CPU profile's start: benchmarks skip to their load). */
  readonly spawnedAt = performance.now();
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;
  private readonly outputEnded: Promise<void>;

  constructor(private readonly options: AppProcessOptions) {
    this.app = options.app;
    this.port = options.port;
    this.url = `http://127.0.0.1:${options.port}`;
    const command = options.script ? [options.script] : [RUN_APP, options.app];
    const nodeArgs = [...(APP_NODE_FLAGS[options.app] ?? []), ...(options.nodeArgs ?? [])];
    this.child = spawn(process.execPath, [...nodeArgs, ...command], {
      cwd: WORKSPACE_ROOT,
      env: { ...process.env, ...options.env, PORT: String(options.port), RP_DEV_LAUNCHER: '1' },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      detached: true,
    });
    const label = (options.label ?? options.app).padEnd(14);
    const logFile = LOG_DIR ? join(LOG_DIR, `${options.label ?? options.app}-${options.port}.log`) : undefined;
    if (LOG_DIR) mkdirSync(LOG_DIR, { recursive: true });
    const format = options.pretty ? createLogFormatter({ colorize: options.colorize ?? false }) : undefined;
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (raw) => {
        this.lines.push(raw);
        if (logFile) appendFileSync(logFile, `${raw}\n`);
        if (this.lines.length > 2000) this.lines.shift();
        const text = format ? format(raw) : raw;
        options.onLine?.(
          text
            .split('\n')
            .map((part) => `${label}| ${part}`)
            .join('\n'),
        );
      });
    }
    this.exited = new Promise((done) => this.child.once('exit', (code, signal) => done(code ?? (signal ? 128 : null))));
    this.outputEnded = new Promise((done) => this.child.once('close', () => done()));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with the exit code once the process has ended. */
  whenExited(): Promise<number | null> {
    return this.exited;
  }

  /** Resolves once the process has ended and its output is read to the end: `lines` then holds every line. */
  whenOutputEnded(): Promise<void> {
    return this.outputEnded;
  }

  /** Waits until the ready path answers 200. Rejects if the process ends first or time runs out. */
  async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let ended = false;
    void this.exited.then(() => (ended = true));
    while (Date.now() < deadline) {
      if (ended) throw new Error(`${this.app} exited with code ${this.child.exitCode} before it was ready`);
      try {
        const response = await fetch(`${this.url}${this.options.readyPath ?? '/health/ready'}`, {
          signal: AbortSignal.timeout(2000),
        });
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${this.app} was not ready within ${timeoutMs} ms`);
  }

  /** SIGKILL to the whole group, as a crash or an out-of-memory kill ends it. Resolves once it has ended. */
  kill(): Promise<number | null> {
    if (this.running) this.signal('SIGKILL');
    return this.exited;
  }

  /** The same app again, same port and settings, in a new process (after this one ended). */
  respawn(): AppProcess {
    return new AppProcess(this.options);
  }

  /** SIGTERM, then SIGKILL to the whole group if it has not ended within `graceMs`. */
  async stop(graceMs = 10_000): Promise<number | null> {
    if (!this.running) return this.exited;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }

  private signal(signal: NodeJS.Signals): void {
    try {
      if (this.child.pid) process.kill(-this.child.pid, signal);
    } catch {
      // already gone
    }
  }
}
