import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { AppProcess, WORKSPACE_ROOT } from './app-process';
import { type DemoNotificationsOutcome, type DemoWallet, registerDemoNotifications } from './demo-notifications';
import {
  DEV_ADMIN_KEY,
  LaunchPlan,
  SANDBOX_PORTS,
  SandboxEndpoints,
  launcherNodeFlags,
  planLaunch,
  portOf,
} from './launch-plan';
import { isPortFree } from './ports';
import { RedisHandle, ensureRedis } from './redis';

export interface LauncherOptions {
  env: NodeJS.ProcessEnv;
  print: (line: string) => void;
  /** Pretty-print app logs; false keeps the raw JSON lines. */
  pretty: boolean;
  /** Colours in pretty app logs: only when the launcher's output is a terminal. */
  colorize?: boolean;
}

/** What the launcher started, written to `<dataDir>/launcher.json` while it runs (tools and tests read it). */
export interface LauncherState {
  pid: number;
  redis: { url: string; pid?: number };
  sandbox: { url: string; pid?: number };
  apps: { app: string; url: string; pid?: number }[];
}

/** Starts Redis (if needed) and the five apps on embedded defaults, waits until all are ready, stops them all. */
export class Launcher {
  private redis?: RedisHandle;
  private processes: AppProcess[] = [];
  private sandbox?: AppProcess;
  private sandboxEndpoints?: SandboxEndpoints & { wallets: { label: string; mnemonic: string; address: string }[] };
  private plan?: LaunchPlan;
  private stopping?: Promise<void>;
  private demoNotifications?: DemoNotificationsOutcome;

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
    const sandboxPorts = SANDBOX_PORTS.map(({ variable, defaultPort }) => ({
      variable,
      port: portOf(this.options.env, variable, defaultPort),
    }));
    for (const { variable, port } of sandboxPorts) {
      if (!(await isPortFree(port)))
        throw new Error(`port ${port} for the sandbox is in use; free it or set ${variable} to another port`);
    }
    this.redis = await ensureRedis(redisUrl);
    if (this.redis.process)
      this.options.print(`Redis was not answering at ${redisUrl}; started one at ${this.redis.url}`);
    const agentSlot = planLaunch(this.options.env, redisUrl).apps.find(({ slot }) => slot.app === 'agent');
    const endpoints = await this.startSandbox({
      ...Object.fromEntries(sandboxPorts.map(({ variable, port }) => [variable, String(port)])),
      ...(agentSlot && { SANDBOX_AGENT_URL: `http://127.0.0.1:${agentSlot.port}/status` }),
    });
    const finalPlan = planLaunch(this.options.env, this.redis.url, endpoints);
    this.plan = finalPlan;
    mkdirSync(finalPlan.dataDir, { recursive: true });

    this.processes = finalPlan.apps.map(
      ({ slot, port, env }) =>
        new AppProcess({
          app: slot.app,
          port,
          env,
          pretty: this.options.pretty,
          colorize: this.options.colorize,
          onLine: this.options.print,
          nodeArgs: launcherNodeFlags(slot.app),
        }),
    );
    await Promise.all(this.processes.map((app) => app.waitReady(finalPlan.readyTimeoutMs)));
    this.demoNotifications = await this.registerDemoNotifications(
      this.sandboxEndpoints ?? { ...endpoints, wallets: [] },
    );
    const state: LauncherState = {
      pid: process.pid,
      redis: { url: this.redis.url, pid: this.redis.process?.pid },
      sandbox: { url: endpoints.url, pid: this.sandbox?.pid },
      apps: this.processes.map((app) => ({ app: app.app, url: app.url, pid: app.pid })),
    };
    writeFileSync(join(finalPlan.dataDir, 'launcher.json'), JSON.stringify(state, null, 2));
    return state;
  }

  /** The sandbox first: every app is pointed at its ledger, Telegram and SMTP stand-ins. */
  private async startSandbox(ports: Record<string, string>): Promise<SandboxEndpoints> {
    const port = Number(ports['SANDBOX_PORT']);
    this.sandbox = new AppProcess({
      app: 'sandbox',
      port,
      env: { ...ports, SANDBOX_SCENARIO: 'demo' },
      pretty: this.options.pretty,
      colorize: this.options.colorize,
      onLine: this.options.print,
      script: join(WORKSPACE_ROOT, 'tools/sandbox/bin/sandbox.cjs'),
      readyPath: '/health/ready',
      nodeArgs: launcherNodeFlags('sandbox'),
    });
    await this.sandbox.waitReady(60_000);
    const scenario = (await (await fetch(`${this.sandbox.url}/control/scenario`)).json()) as {
      pool: string;
      swapReceiver: string;
      poolFactory: string;
      paymentReceiver: string;
      sponsor: { secret: string };
      wallets: { key: string; label: string; mnemonic: string; address: string }[];
    };
    const agentWallet = scenario.wallets.find((wallet) => wallet.key === 'endangered');
    if (!agentWallet) throw new Error('the sandbox scenario has no endangered demo wallet for the agent');
    this.sandboxEndpoints = {
      url: this.sandbox.url,
      secureUrl: `https://127.0.0.1:${ports['SANDBOX_TLS_PORT']}`,
      smtpPort: Number(ports['SANDBOX_SMTP_PORT']),
      pool: scenario.pool,
      swapReceiver: scenario.swapReceiver,
      poolFactory: scenario.poolFactory,
      paymentReceiver: scenario.paymentReceiver,
      sponsorSecret: scenario.sponsor.secret,
      agentMnemonic: agentWallet.mnemonic,
      wallets: scenario.wallets,
    };
    return this.sandboxEndpoints;
  }

  /** Notification configs of the demo wallets at the sandbox's stand-ins, once the notifications routes exist. */
  private async registerDemoNotifications(
    endpoints: SandboxEndpoints & { wallets: DemoWallet[] },
  ): Promise<DemoNotificationsOutcome> {
    const gateway = this.processes.find((app) => app.app === 'gateway');
    if (!gateway) return { registered: false, reason: 'no gateway' };
    const adminKey = this.options.env['RMS_ADMIN_API_KEY'] || DEV_ADMIN_KEY;
    return registerDemoNotifications(gateway.url, adminKey, endpoints.url, endpoints.wallets).catch(
      (error: unknown) => ({ registered: false as const, reason: (error as Error).message }),
    );
  }

  /** Resolves with the first app (or the sandbox) that ends while the system is up (it should not). */
  firstExit(): Promise<AppProcess> {
    const all = this.sandbox ? [this.sandbox, ...this.processes] : this.processes;
    return Promise.race(all.map((app) => app.whenExited().then(() => app)));
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
    await this.sandbox?.stop();
    await this.redis?.stop();
    if (this.plan) rmSync(join(this.plan.dataDir, 'launcher.json'), { force: true });
  }

  banner(startedAt: number): string[] {
    const { plan, redis, sandboxEndpoints: sandbox } = this;
    const gateway = this.processes.find((app) => app.app === 'gateway');
    if (!plan || !redis || !gateway || !sandbox) return ['not started'];
    const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
    const rows = plan.apps.map(
      ({ slot, port }) => `  ${slot.app.padEnd(14)} http://127.0.0.1:${port}`.padEnd(42) + slot.serves,
    );
    const redisNote = redis.process ? 'started by the launcher, stopped with it' : 'already running';
    const notifications = plan.apps.find(({ slot }) => slot.app === 'notifications')?.env ?? {};
    return [
      '',
      `  Risk protection platform: all ${this.processes.length} apps ready in ${seconds} s (embedded mode)`,
      '',
      `  API            ${gateway.url}/api/v1`,
      ...rows,
      '',
      `  API docs       ${gateway.url}/api/docs`,
      `  buy a key      npm run buy-key -- --email you@example.com   (pays 0.2026 sandbox USDC from the healthy demo wallet)`,
      `  health         ${gateway.url}/health/ready   (every app: /health/live, /health/ready, /metrics)`,
      `  Redis          ${redis.url} (${redisNote})`,
      `  data           ${shortPath(plan.dataDir)}/<app>.sqlite (embedded SQLite, kept between runs)`,
      `  admin key      ${notifications['RMS_ADMIN_API_KEY'] ?? ''}   (x-admin-key: trigger, DLQ, partner keys)`,
      `  webhook secret ${notifications['RMS_WEBHOOK_SECRET'] ?? ''}   (X-Webhook-Secret: POST /api/v1/rms/notifications/webhook)`,
      '',
      `  sandbox        ${sandbox.url}/   page: ledgers, balances, positions, prices, received messages`,
      `                 RPC ${sandbox.url}/rpc (testnet) · Telegram ${sandbox.url}/telegram · SMTP 127.0.0.1:${sandbox.smtpPort}`,
      `                 webhooks ${sandbox.url}/hooks/discord/<id>/<token> or /hooks/slack/<T>/<B>/<X> (accepted channelWebhook URLs)`,
      `  demo pool      ${sandbox.pool}`,
      ...sandbox.wallets.flatMap((wallet) => [
        `  ${wallet.label}`,
        `                 ${wallet.address}`,
        `                 mnemonic (DEMO ONLY, sandbox money): ${wallet.mnemonic}`,
      ]),
      `  demo agent     ${this.processes.find((app) => app.app === 'agent')?.url ?? '-'}/status   protects the endangered wallet; the page shows it`,
      `                 press XLM -10 % on the page: alerts arrive, the agent closes the position within a ledger or two`,
      `  demo alerts    ${
        this.demoNotifications?.registered
          ? `Telegram, Discord webhook and email configs registered for ${this.demoNotifications.wallets} demo wallets`
          : `not registered: ${this.demoNotifications?.reason ?? 'unknown'}`
      }`,
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
