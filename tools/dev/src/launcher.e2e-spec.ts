/**
 * `npm start` as a person runs it: the launcher process with its five apps, on free ports, with Redis not
 * answering at the configured URL (so it starts its own). Then Ctrl-C, and nothing may be left running.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from './app-process';
import { LauncherState } from './launcher';
import { freePort } from './ports';

const START = join(WORKSPACE_ROOT, 'tools/dev/bin/start.cjs');
/** What of the agent's `GET /status` this test reads. */
interface AgentView {
  wallet: { address: string };
}
const BUY_KEY = join(WORKSPACE_ROOT, 'tools/dev/bin/buy-key.cjs');

function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function nodeOnlyPath(under: string): string {
  const bin = join(under, 'node-only-bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(process.execPath, join(bin, 'node'));
  return bin;
}

async function launch(env: Record<string, string>) {
  const output: string[] = [];
  const child = spawn(process.execPath, [START], { cwd: WORKSPACE_ROOT, env: { ...process.env, ...env } });
  child.stdout.on('data', (chunk: Buffer) => output.push(...chunk.toString().split('\n')));
  child.stderr.on('data', (chunk: Buffer) => output.push(...chunk.toString().split('\n')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

async function until(condition: () => boolean, timeoutMs: number, what: string, output: string[]): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline)
      throw new Error(`${what} did not happen within ${timeoutMs} ms:\n${output.slice(-40).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('npm start (the dev launcher)', () => {
  let dataDir: string;
  let launched: Awaited<ReturnType<typeof launch>> | undefined;
  const ports: Record<string, number> = {};

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rp-launcher-'));
    for (const app of [
      'GATEWAY',
      'SUBSCRIPTION',
      'TXB',
      'NOTIFICATIONS',
      'AGENT',
      'SANDBOX',
      'SANDBOX_TLS',
      'SANDBOX_SMTP',
    ]) {
      ports[app] = await freePort();
    }
  });

  afterAll(async () => {
    if (launched && launched.child.exitCode === null) launched.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts Redis and all five apps, forwards to each service, and leaves nothing behind on Ctrl-C', async () => {
    const deadRedis = `redis://127.0.0.1:${await freePort()}`;
    launched = await launch({
      ...Object.fromEntries(Object.entries(ports).map(([app, port]) => [`${app}_PORT`, String(port)])),
      REDIS_URL: deadRedis,
      DEV_DATA_DIR: dataDir,
      DEV_LOG_FORMAT: 'json',
    });
    const { child, output, exited } = launched;
    await until(
      () => output.some((line) => line.includes('Ctrl-C stops everything.')),
      90_000,
      'the ready banner',
      output,
    );

    expect(output.join('\n')).toMatch(/all 5 apps ready in \d+\.\d s/);
    expect(output.join('\n')).toContain(`Redis was not answering at ${deadRedis}; started one at redis://127.0.0.1:`);
    const state = JSON.parse(readFileSync(join(dataDir, 'launcher.json'), 'utf8')) as LauncherState;
    expect(state.apps.map((app) => app.app)).toEqual(['gateway', 'subscription', 'txb', 'notifications', 'agent']);
    expect(alive(state.redis.pid)).toBe(true);

    const gateway = `http://127.0.0.1:${ports['GATEWAY']}`;
    expect((await fetch(`${gateway}/health/ready`)).status).toBe(200);
    // Public routes (no key needed) of each service: the gateway forwards them with the request id.
    for (const [path, method, service, status] of [
      ['keys/subscribe/status?email=probe%40example.com', 'GET', 'subscription', 404],
      ['txb/status', 'GET', 'txb', 200],
      // No X-Webhook-Secret: refused by notifications itself.
      ['rms/notifications/webhook', 'POST', 'notifications', 403],
    ] as const) {
      const requestId = `launcher-probe-${service}`;
      const response = await fetch(`${gateway}/api/v1/${path}`, { method, headers: { 'x-request-id': requestId } });
      expect(response.status).toBe(status);
      expect(response.headers.get('x-request-id')).toBe(requestId);
      // The service itself logged the forwarded request, with the same id.
      await until(
        () => output.some((line) => line.startsWith(service.padEnd(14)) && line.includes(`"id":"${requestId}"`)),
        5000,
        `${service} logging ${requestId}`,
        output,
      );
    }
    expect((await fetch(`http://127.0.0.1:${ports['AGENT']}/health`)).status).toBe(200);

    // The sandbox runs first with the demo scenario; the banner shows its page.
    const sandboxUrl = `http://127.0.0.1:${ports['SANDBOX']}`;
    expect(output.join('\n')).toContain(`sandbox        ${sandboxUrl}/`);
    expect(output.join('\n')).toContain('mnemonic (DEMO ONLY, sandbox money)');
    const page = await fetch(`${sandboxUrl}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Demo Pool');
    expect(html).toContain('demo wallet (near danger');
    expect(alive(state.sandbox.pid)).toBe(true);
    // The page's Agent section: the sandbox relays the demo agent's own /status (the real agent, its wallet).
    const agentStatus = (await (await fetch(`http://127.0.0.1:${ports['AGENT']}/status`)).json()) as AgentView;
    const relayed = await fetch(`${sandboxUrl}/agent/status`);
    expect(relayed.status).toBe(200);
    const relayedStatus = (await relayed.json()) as AgentView;
    expect(Object.keys(relayedStatus).sort()).toEqual(Object.keys(agentStatus).sort());
    expect(relayedStatus.wallet.address).toBe(agentStatus.wallet.address);

    // The README's newcomer path: buy a key with the demo wallet, then call a protected route with it.
    const bought = spawnSync(
      process.execPath,
      [
        BUY_KEY,
        '--email',
        'newcomer@example.com',
        '--gateway',
        gateway,
        '--rpc',
        `https://127.0.0.1:${ports['SANDBOX_TLS']}/rpc`,
      ],
      { cwd: WORKSPACE_ROOT, encoding: 'utf8', timeout: 60_000 },
    );
    expect({ status: bought.status, stderr: bought.stderr }).toMatchObject({ status: 0 });
    const apiKey = bought.stdout.trim();
    expect(apiKey).toMatch(/^rp_test_[0-9A-Za-z]{32}$/);
    const me = await fetch(`${gateway}/api/v1/keys/me`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ tier: 'standard', email: 'newcomer@example.com' });

    // txb is pointed at the sandbox's pool and swap receiver: a partial unwind of the endangered demo wallet sells
    // collateral through a flash loan, whose first step (no approval yet) is the wallet's approval of the pool.
    const scenario = (await (await fetch(`${sandboxUrl}/control/scenario`)).json()) as {
      pool: string;
      wallets: { key: string; address: string }[];
    };
    const endangered = scenario.wallets.find((wallet) => wallet.key === 'endangered')?.address;
    const unwind = await fetch(`${gateway}/api/v1/txb/build`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        action: 'UNWIND',
        walletAddress: endangered,
        poolAddress: scenario.pool,
        targetHealthFactor: 1.5,
      }),
    });
    expect(unwind.status).toBe(200);
    expect(await unwind.json()).toMatchObject({ proposal: { metadata: { action: 'UNWIND', route: 'approve' } } });

    // notifications sends to the sandbox's Telegram, webhook receiver and SMTP sink; the banner shows the inbound
    // webhook's secret beside the admin key.
    const banner = output.join('\n');
    expect(banner).toContain('admin key      dev-admin-key-sandbox-only');
    const secret = /webhook secret (\S+)/.exec(banner)?.[1] ?? '';
    expect(secret).toMatch(/^[0-9a-f]{36}$/);
    const wallet = scenario.wallets.find((w) => w.key !== 'endangered')?.address;
    const keyed = { Authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    for (const [channel, fields] of [
      ['messenger', { messengerChatId: '424242' }],
      ['channelhook', { channelWebhook: `${sandboxUrl}/hooks/discord/42/launcher` }],
      ['email', { email: 'newcomer@example.com' }],
    ] as const) {
      const registered = await fetch(`${gateway}/api/v1/rms/notifications/${channel}`, {
        method: 'POST',
        headers: keyed,
        body: JSON.stringify({ walletAddress: wallet, minRiskLevel: 'low', ...fields }),
      });
      expect({ channel, status: registered.status }).toEqual({ channel, status: 201 });
    }
    const alertId = `launcher-${Date.now()}`;
    const accepted = await fetch(`${gateway}/api/v1/rms/notifications/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-secret': secret },
      body: JSON.stringify({
        source: 'launcher-test',
        alert: {
          alertId,
          address: wallet,
          poolAddress: scenario.pool,
          riskLevel: 'critical',
          healthFactor: 1.04,
          triggers: ['low_health_factor'],
          collateralValueUsd: 100,
          liabilityValueUsd: 96,
          recommendedAction: 'LIQUIDATE',
          evaluatedAt: new Date().toISOString(),
        },
        routing: { priority: 'urgent' },
      }),
    });
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toMatchObject({ queued: ['messenger', 'channelhook', 'email'] });
    const received = async () => {
      const all = (await (await fetch(`${sandboxUrl}/control/messages`)).json()) as {
        channel: string;
        destination: string;
        text: string;
      }[];
      // Only this test's configs: `npm start` registers demo configs of its own for the demo wallets too.
      const ours = ['424242', 'discord/42/launcher', 'newcomer@example.com'];
      return all.filter((m) => m.text.includes(alertId) && ours.includes(m.destination)).map((m) => m.channel);
    };
    let channels: string[] = [];
    for (let i = 0; i < 100 && channels.length < 3; i += 1) {
      channels = await received();
      if (channels.length < 3) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(channels.sort()).toEqual(['email', 'telegram', 'webhook']);

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output.join('\n')).toContain('stopped.');
    for (const app of state.apps)
      expect({ app: app.app, alive: alive(app.pid) }).toEqual({ app: app.app, alive: false });
    expect(alive(state.redis.pid)).toBe(false);
    expect(alive(state.sandbox.pid)).toBe(false);
    expect(() => readFileSync(join(dataDir, 'launcher.json'))).toThrow();
  }, 150_000);

  it('says how to get Redis when none answers and redis-server is not installed', async () => {
    const { output, exited } = await launch({
      ...Object.fromEntries(Object.entries(ports).map(([app, port]) => [`${app}_PORT`, String(port)])),
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      DEV_DATA_DIR: dataDir,
      // A PATH holding node and nothing else: no redis-server to be found.
      PATH: nodeOnlyPath(dataDir),
    });
    expect(await exited).toBe(1);
    const text = output.join('\n');
    expect(text).toContain('is not answering at redis://127.0.0.1:');
    expect(text).toContain('redis-server is not installed');
    expect(text).toContain('sudo apt-get install redis-server');
  }, 60_000);

  it('refuses to start when a port it needs is taken, and says which setting moves it', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(ports['TXB'], '127.0.0.1', resolve));
    try {
      const { output, exited } = await launch({
        ...Object.fromEntries(Object.entries(ports).map(([app, port]) => [`${app}_PORT`, String(port)])),
        DEV_DATA_DIR: dataDir,
      });
      expect(await exited).toBe(1);
      expect(output.join('\n')).toContain(
        `port ${ports['TXB']} for txb is in use; free it or set TXB_PORT to another port`,
      );
    } finally {
      blocker.close();
    }
  }, 60_000);
});
