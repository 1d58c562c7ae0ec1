import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { AppProcess, WORKSPACE_ROOT } from './app-process';
import { LaunchPlan, planLaunch } from './launch-plan';
import { isPortFree } from './ports';
import { RedisHandle, ensureRedis } from './redis';

export interface LauncherOptions {
  env: NodeJS.ProcessEnv;
  print: (line: string) => void;
  /** Pretty-print app logs; false keeps the raw JSON lines. */
  pretty: boolean;
}

/** What the launcher started, written to `<dataDir>/launcher.json` while it runs (tools and tests read it). */
export interface LauncherState {
  pid: number;
  redis: { url: string; pid?: number };
  apps: { app: string; url: string; pid?: number }[];
}

/** Starts Redis (if needed) and the five apps on embedded defaults, waits until all are ready, stops them all. */
export class Launcher {
  private redis?: RedisHandle;
  private processes: AppProcess[] = [];
  private plan?: LaunchPlan;
  private stopping?: Promise<void>;

  constructor(private readonly options: LauncherOptions) {}

  get apps(): readonly AppProcess[] {
    return this.processes;
  }

  async start(): Promise<LauncherState> {
    const redisUrl = this.options.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
    for (const { slot, port } of planLaunch(this.options.env, redisUrl).apps) {
      if (!(await isPortFree(port))) {
        throw new Error(`port ${port} for ${slot.app} is in use; free it or set ${slot.portVariable} to another port`);
      }
    }
    this.redis = await ensureRedis(redisUrl);
    if (this.redis.process)
      this.options.print(`Redis was not answering at ${redisUrl}; started one at ${this.redis.url}`);
    const finalPlan = planLaunch(this.options.env, this.redis.url);
    this.plan = finalPlan;
    mkdirSync(finalPlan.dataDir, { recursive: true });

    this.processes = finalPlan.apps.map(
      ({ slot, port, env }) =>
        new AppProcess({ app: slot.app, port, env, pretty: this.options.pretty, onLine: this.options.print }),
    );
    await Promise.all(this.processes.map((app) => app.waitReady(finalPlan.readyTimeoutMs)));
    const state: LauncherState = {
      pid: process.pid,
      redis: { url: this.redis.url, pid: this.redis.process?.pid },
      apps: this.processes.map((app) => ({ app: app.app, url: app.url, pid: app.pid })),
    };
    writeFileSync(join(finalPlan.dataDir, 'launcher.json'), JSON.stringify(state, null, 2));
    return state;
  }

  /** Resolves with the first app that ends while the system is up (it should not). */
  firstExit(): Promise<AppProcess> {
    return Promise.race(this.processes.map((app) => app.whenExited().then(() => app)));
  }

  /** Gateway first (no new traffic), then the services, then Redis if the launcher started it. */
  stop(): Promise<void> {
    return (this.stopping ??= this.stopAll());
  }

  private async stopAll(): Promise<void> {
    const gateway = this.processes.filter((app) => app.app === 'gateway');
    const rest = this.processes.filter((app) => app.app !== 'gateway');
    await Promise.all(gateway.map((app) => app.stop()));
    await Promise.all(rest.map((app) => app.stop()));
    await this.redis?.stop();
    if (this.plan) rmSync(join(this.plan.dataDir, 'launcher.json'), { force: true });
  }

  banner(startedAt: number): string[] {
    const { plan, redis } = this;
    const gateway = this.processes.find((app) => app.app === 'gateway');
    if (!plan || !redis || !gateway) return ['not started'];
    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    const rows = plan.apps.map(
      ({ slot, port }) => `  ${slot.app.padEnd(14)} http://127.0.0.1:${port}`.padEnd(42) + slot.serves,
    );
    const redisNote = redis.process ? 'started by the launcher, stopped with it' : 'already running';
    return [
      '',
      `  Risk protection platform: all ${this.processes.length} apps ready in ${seconds} s (embedded mode)`,
      '',
      `  API            ${gateway.url}/api/v1`,
      ...rows,
      '',
      `  health         ${gateway.url}/health/ready   (every app: /health/live, /health/ready, /metrics)`,
      `  Redis          ${redis.url} (${redisNote})`,
      `  data           ${shortPath(plan.dataDir)}/<app> (embedded PGlite, kept between runs)`,
      `  agent wallet   demo mnemonic (SEP-5 test vector): for demonstration only, never fund it`,
      '',
      '  Ctrl-C stops everything.',
      '',
    ];
  }
}

/** A path relative to the workspace when it is inside it, absolute otherwise. */
function shortPath(path: string): string {
  const inside = relative(WORKSPACE_ROOT, path);
  return inside === '' ? '.' : inside.startsWith('..') ? path : inside;
}
