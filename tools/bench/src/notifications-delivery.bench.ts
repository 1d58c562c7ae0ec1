import { randomBytes, randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { AppProcess, WORKSPACE_ROOT, freePort } from '@rp/dev';
import { signInternalRequest } from '@rp/platform';
import { startSandbox } from '@rp/sandbox';
import { Keypair } from '@stellar/stellar-sdk';
import { Pool } from 'undici';
import { machineCaption, writeChart } from './svg-chart';

const TOKEN = 'bench-internal-token-0123456789abcdef';
const SECRET = 'bench-webhook-secret-0123456789';
const WALLETS = Number(process.env['BENCH_WALLETS'] ?? 2000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const WORKERS = Number(process.env['BENCH_WORKERS'] ?? 2);
/** Each worker's concurrency; a list measures part 1 at each (the curve), part 2 at the last. */
const CONCURRENCIES = (process.env['BENCH_WORKER_CONCURRENCY'] ?? '50,100,200').split(',').map(Number);
const RATE = Number(process.env['BENCH_RATE'] ?? 100);
const RATE_SECONDS = Number(process.env['BENCH_RATE_SECONDS'] ?? 20);
const BASE = '/api/v1/rms/notifications';
/** Write V8 CPU profiles of the API and the first worker here (`BENCH_CPU_PROF=/tmp/prof`). */
const PROFILE_DIR = process.env['BENCH_CPU_PROF'];
let starts = 0;

interface Destination {
  wallet: string;
  chatId: string;
  hook: string;
  email: string;
}

/**
 * Deliveries of the notifications service to the sandbox's Telegram, Discord/Slack and SMTP stand-ins, as real
 * processes (`NODE_ENV=production`, `LOG_LEVEL=warn`): one API process and `WORKERS` worker processes on the test
 * Redis, `WALLETS` wallets with the three channels each (own chat, own bot, own hook, own address: many
 * destinations). Alerts go in through the webhook route, signed as the gateway would.
 * 1. sustained deliveries/s: `ROUNDS` alerts per wallet as fast as the API takes them (each destination paced by
 *    its lane, about 1/s), from the first submission to the last message received; once per worker concurrency in
 *    `CONCURRENCIES` (the workers restarted with it), drawn as a curve;
 * 2. latency at `RATE` alerts/s for `RATE_SECONDS`: intake (webhook answered) to the stand-in receiving it.
 * Every alert must reach each of its three destinations (zero lost).
 */
async function main(): Promise<void> {
  const sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0, scenario: 'empty' });
  const database = `/tmp/rp-bench-notifications-${randomBytes(4).toString('hex')}.sqlite`;
  const env = {
    HOST: '127.0.0.1',
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    INTERNAL_TOKEN: TOKEN,
    REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    DATABASE_URL: `sqlite://${database}`,
    NOTIFICATIONS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    NOTIFICATIONS_KEY_PREFIX: `bench${randomBytes(3).toString('hex')}`,
    NOTIFICATIONS_WEBHOOK_HOSTS: new URL(sandbox.url).host,
    MESSENGER_API_URL: `${sandbox.url}/telegram`,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(sandbox.smtpPort),
    EMAIL_FROM: 'bench@example.com',
    RMS_WEBHOOK_SECRET: SECRET,
    CONTRACT_RPC_URL: sandbox.rpcUrl,
  };
  const start = async (role: string, concurrency = CONCURRENCIES[0]) => {
    const profiled = PROFILE_DIR && (role === 'api' || starts === 1);
    starts += 1;
    const app = new AppProcess({
      app: 'notifications',
      port: await freePort(),
      nodeArgs: profiled ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${role}.cpuprofile`] : [],
      env: { ...env, NOTIFICATIONS_ROLE: role, NOTIFICATIONS_WORKER_CONCURRENCY: String(concurrency) },
    });
    await app.waitReady(60_000);
    return app;
  };
  const api = await start('api');
  let workers: AppProcess[] = [];
  const pool = new Pool(api.url, { connections: 64, keepAliveTimeout: 30_000 });
  const identity = {
    keyId: 'bench',
    tier: 'partner' as const,
    rateLimit: 1e6,
    burst: 1e6,
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    email: 'bench@example.com',
    account: 'partner:bench',
  };
  const call = async (path: string, body: object, withIdentity: boolean) => {
    const text = JSON.stringify(body);
    const requestId = randomUUID();
    const headers = {
      ...signInternalRequest({
        token: TOKEN,
        method: 'POST',
        path,
        requestId,
        identity: withIdentity ? identity : undefined,
        body: text,
      }),
      'x-request-id': requestId,
      'content-type': 'application/json',
      ...(withIdentity ? {} : { 'x-webhook-secret': SECRET }),
    };
    const answer = await pool.request({ method: 'POST', path, headers, body: text });
    const answerText = await answer.body.text();
    if (answer.statusCode >= 300) throw new Error(`${path}: ${answer.statusCode} ${answerText}`);
    return JSON.parse(answerText) as Record<string, unknown>;
  };

  // Where each alert was received, by "<alertId>|<channel>".
  const received = new Map<string, number>();
  sandbox.channels.log.subscribe((entry) => {
    if (entry.outcome !== 'delivered') return;
    const id = /(bench-[0-9a-f-]+)/.exec(entry.text)?.[1];
    if (!id) return;
    const key = `${id}|${entry.channel}`;
    if (!received.has(key)) {
      received.set(key, performance.now());
    }
  });

  try {
    const registered = performance.now();
    const destinations: Destination[] = [];
    for (let i = 0; i < WALLETS; i += 1) {
      const id = 90_000_000 + i;
      const bot = `${700_000 + i}:${randomBytes(18).toString('hex')}`;
      const hook =
        i % 2 === 0 ? `${sandbox.url}/hooks/discord/${id}/t${i}` : `${sandbox.url}/hooks/slack/T${i}/B${i}/X${i}`;
      destinations.push({
        wallet: Keypair.random().publicKey(),
        chatId: String(id),
        hook,
        email: `w${i}@bench.example`,
      });
      const d = destinations[i];
      await Promise.all([
        call(
          `${BASE}/messenger`,
          { walletAddress: d.wallet, messengerChatId: d.chatId, messengerBotToken: bot, minRiskLevel: 'low' },
          true,
        ),
        call(`${BASE}/channelhook`, { walletAddress: d.wallet, channelWebhook: d.hook, minRiskLevel: 'low' }, true),
        call(`${BASE}/email`, { walletAddress: d.wallet, email: d.email, minRiskLevel: 'low' }, true),
      ]);
    }
    const registrationSeconds = (performance.now() - registered) / 1000;
    const alert = (d: Destination, id: string) => ({
      source: 'bench',
      alert: {
        alertId: id,
        address: d.wallet,
        poolAddress: 'CBIELTK6YBZJU5UP2WWQEUCYKLPU6AUNZ2BQ4WWFEIE3USCIHMXQDAMA',
        riskLevel: 'critical',
        healthFactor: 1.05,
        triggers: ['low_health_factor'],
        collateralValueUsd: 1000,
        liabilityValueUsd: 950,
        recommendedAction: 'LIQUIDATE',
        evaluatedAt: new Date().toISOString(),
      },
      routing: { priority: 'urgent' },
    });
    const waitFor = async (keys: string[], timeoutMs: number) => {
      const until = Date.now() + timeoutMs;
      while (keys.some((k) => !received.has(k)) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      return keys.filter((k) => !received.has(k)).length;
    };
    const keysOf = (ids: string[]) => ids.flatMap((id) => ['telegram', 'webhook', 'email'].map((c) => `${id}|${c}`));

    // 1. Sustained throughput, once per worker concurrency (workers restarted with it).
    const sustained = async () => {
      const ids: string[] = [];
      const began = performance.now();
      const jobs: Promise<unknown>[] = [];
      let inFlight = 0;
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const d of destinations) {
          const id = `bench-${randomUUID()}`;
          ids.push(id);
          while (inFlight >= 64) await new Promise((r) => setImmediate(r));
          inFlight += 1;
          jobs.push(call(`${BASE}/webhook`, alert(d, id), false).finally(() => (inFlight -= 1)));
        }
      }
      await Promise.all(jobs);
      const accepted = performance.now();
      const keys = keysOf(ids);
      const lost = await waitFor(keys, 300_000);
      const last = Math.max(...keys.map((k) => received.get(k) ?? 0));
      const seconds = (last - began) / 1000;
      return { seconds, lost, deliveries: keys.length - lost, intakeSeconds: (accepted - began) / 1000 };
    };
    const curve: { concurrency: number; perSecond: number; lost: number; note: string }[] = [];
    for (const concurrency of CONCURRENCIES) {
      for (const worker of workers) await worker.stop();
      workers = [];
      for (let i = 0; i < WORKERS; i += 1) workers.push(await start('worker', concurrency));
      const run = await sustained();
      const perSecond = run.deliveries / run.seconds;
      const note = `${run.deliveries} delivered in ${run.seconds.toFixed(1)} s (intake took ${run.intakeSeconds.toFixed(1)} s); lost ${run.lost}`;
      curve.push({ concurrency, perSecond, lost: run.lost, note });
      process.stdout.write(`concurrency ${concurrency}: ${perSecond.toFixed(0)} deliveries/s, ${note}\n`);
    }
    const lostThroughput = curve.reduce((sum, c) => sum + c.lost, 0);

    // 2. Latency at a steady rate (wallets in turn: no destination sees two alerts within a few seconds).
    const submittedAt = new Map<string, number>();
    const latencyIds: string[] = [];
    const total = RATE * RATE_SECONDS;
    const t0 = performance.now();
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < total; i += 1) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const id = `bench-${randomUUID()}`;
      latencyIds.push(id);
      const d = destinations[i % destinations.length];
      sends.push(call(`${BASE}/webhook`, alert(d, id), false).then(() => submittedAt.set(id, performance.now())));
    }
    await Promise.all(sends);
    const latencyKeys = keysOf(latencyIds);
    const lostLatency = await waitFor(latencyKeys, 120_000);
    const latencies = (channel?: string) =>
      latencyKeys
        .filter((k) => !channel || k.endsWith(`|${channel}`))
        .filter((k) => received.has(k))
        .map((k) => (received.get(k) as number) - (submittedAt.get(k.split('|')[0]) as number))
        .sort((a, b) => a - b);
    const pct = (values: number[], q: number) =>
      Math.round(values[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN);

    const rows = [
      `| registrations (3 channels × ${WALLETS} wallets, one after another) | ${((WALLETS * 3) / registrationSeconds).toFixed(0)} /s | |`,
      ...curve.map(
        (c) =>
          `| sustained deliveries, ${ROUNDS} alerts × ${WALLETS} wallets × 3 channels, ${WORKERS} worker processes × ${c.concurrency} | ${c.perSecond.toFixed(0)} /s | ${c.note} |`,
      ),
      ...(['telegram', 'webhook', 'email', undefined] as const).map((channel) => {
        const values = latencies(channel);
        return `| intake → delivered at ${RATE} alerts/s, ${channel ?? 'all channels'} | p50 ${pct(values, 0.5)} ms, p99 ${pct(values, 0.99)} ms | ${values.length} deliveries |`;
      }),
      `| lost at ${RATE} alerts/s | ${lostLatency} | of ${latencyKeys.length} |`,
    ];
    process.stdout.write(`\n${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}\n\n`);
    process.stdout.write(['| measurement | result | notes |', '|---|---|---|', ...rows].join('\n') + '\n');
    process.stdout.write(
      `\n${JSON.stringify({ deliveriesPerSecond: curve.map((c) => ({ concurrency: c.concurrency, perSecond: c.perSecond })), lostThroughput, lostLatency, p50: pct(latencies(), 0.5), p99: pct(latencies(), 0.99) })}\n`,
    );
    const chart = writeChart(WORKSPACE_ROOT, 'notifications-delivery', {
      kind: 'line',
      title: `Deliveries/s against worker concurrency (${WORKERS} workers, ${WALLETS * 3} destinations)`,
      caption: machineCaption(),
      xLabel: 'concurrency of each worker process (NOTIFICATIONS_WORKER_CONCURRENCY)',
      yLabel: 'deliveries/s',
      series: [
        {
          name: `${ROUNDS} alerts × ${WALLETS} wallets × 3 channels`,
          points: curve.map((c) => [c.concurrency, c.perSecond]),
        },
      ],
    });
    if (chart) process.stdout.write(`chart: ${chart}\n`);
  } finally {
    await pool.close();
    for (const app of [...workers, api]) await app.stop();
    await sandbox.close();
    const { rmSync } = await import('node:fs');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${database}${suffix}`, { force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
