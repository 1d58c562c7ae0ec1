import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { LedgerRpc } from '@rp/ledger';
import { type LoadedScenario, type RunningSandbox, startSandbox, trustSandboxCertificate } from '@rp/sandbox';

/**
 * The service the agent talks to, for the agent's integration tests: the sandbox in this process (its ledger closes
 * when the test says, or on a ticker the test can pause) and the real subscription, notifications and gateway apps
 * as processes started the way `npm start` starts them (`tools/dev/bin/run-app.cjs`). Nothing of ours is mocked; an
 * app's code is never imported here (apps do not import apps), only run.
 */
const ROOT = resolve(__dirname, '../../..');
export const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
export const ADMIN_KEY = 'admin-key-for-agent-integration';
export const PRICE = 2_026_000n;

export interface ServiceProcess {
  readonly url: string;
  readonly lines: string[];
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** One app as a process on `port` (a free one by default), ready once `/health/ready` answers 200. */
export async function startServiceProcess(
  app: 'subscription' | 'notifications' | 'gateway',
  env: Record<string, string>,
  port?: number,
): Promise<ServiceProcess> {
  const listen = port ?? (await freePort());
  const child: ChildProcess = spawn(process.execPath, [resolve(ROOT, 'tools/dev/bin/run-app.cjs'), app], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env, PORT: String(listen) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => lines.push(line));
  }
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = `http://127.0.0.1:${listen}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    const ready = await fetch(`${url}/health/ready`).then((answer) => answer.status === 200, () => false);
    if (ready) return { url, lines, stop };
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${app} did not start:\n${lines.slice(-20).join('\n')}`);
    }
    await new Promise((done) => setTimeout(done, 200));
  }
}

/** The sandbox, its ledger closing on a ticker the test can pause (to catch a settlement in flight). */
export interface LedgerSandbox {
  sandbox: RunningSandbox;
  scenario: LoadedScenario;
  rpc: LedgerRpc;
  /** Stops closing ledgers until `resume`. */
  pause(): void;
  resume(): void;
  usdc(owner: string): bigint;
  close(): Promise<void>;
}

export async function startLedgerSandbox(tickMs = 250): Promise<LedgerSandbox> {
  const sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
  // The x402 client builds the payment over HTTPS only: this process trusts the sandbox's loopback certificate.
  trustSandboxCertificate(sandbox.tlsCertificate);
  const scenario = sandbox.scenario as LoadedScenario;
  let paused = false;
  const ticker = setInterval(() => {
    if (!paused) sandbox.ledger.closeLedger();
  }, tickMs);
  return {
    sandbox,
    scenario,
    rpc: new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' }),
    pause: () => (paused = true),
    resume: () => (paused = false),
    usdc: (owner) => sandbox.control.setup.balance(scenario.usdc, owner),
    async close() {
      clearInterval(ticker);
      await sandbox.close();
    },
  };
}

/** The real subscription service on the sandbox: it sells keys for the demo scenario's USDC. */
export function startSubscription(ledger: LedgerSandbox, env: Record<string, string> = {}): Promise<ServiceProcess> {
  return startServiceProcess('subscription', {
    DATABASE_URL: 'sqlite://memory',
    X402_PAYMENT_ADDRESS_LEDGER: ledger.scenario.paymentReceiver,
    X402_FACILITATOR_LEDGER_SECRET_KEY: ledger.scenario.sponsor.secret,
    X402_LEDGER_NETWORK: 'ledger:testnet',
    CONTRACT_RPC_URL: ledger.sandbox.rpcUrl,
    RMS_ADMIN_API_KEY: ADMIN_KEY,
    ...env,
  });
}

/** Settings of the notifications app delivering to the sandbox's Telegram, webhook and SMTP stand-ins. */
export function notificationsEnv(ledger: LedgerSandbox, databaseUrl: string): Record<string, string> {
  return {
    NOTIFICATIONS_ROLE: 'all',
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    NOTIFICATIONS_KEY_PREFIX: `agentint${randomBytes(4).toString('hex')}`,
    CONTRACT_RPC_URL: ledger.sandbox.rpcUrl,
    MESSENGER_API_URL: `${ledger.sandbox.url}/telegram`,
    MESSENGER_BOT_TOKEN: `424242:${'B'.repeat(35)}`,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(ledger.sandbox.smtpPort),
    EMAIL_FROM: 'agent-events@example.com',
    NOTIFICATIONS_WEBHOOK_HOSTS: `127.0.0.1:${new URL(ledger.sandbox.url).port}`,
    RMS_ADMIN_API_KEY: ADMIN_KEY,
  };
}

/** A partner key from the subscription service's admin route, through the gateway. */
export async function partnerKey(gatewayUrl: string, email: string): Promise<string> {
  const answer = await fetch(`${gatewayUrl}/api/v1/keys/partners`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-admin-key': ADMIN_KEY },
    body: JSON.stringify({ email, rateLimit: 600, burst: 100, durationDays: 1 }),
  });
  const body = (await answer.json()) as { apiKey?: string };
  if (answer.status !== 201 || !body.apiKey) throw new Error(`partner key: ${answer.status} ${JSON.stringify(body)}`);
  return body.apiKey;
}

/** Polls `check` until it holds (a safety bound, not a timing assertion). */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}
