import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { CallerIdentity } from '@rp/contracts';
import { AppProcess, freePort } from '@rp/dev';
import { LedgerRpc, LedgerWallet, type PaymentRequired, createExactPayment, encodeX402Header } from '@rp/ledger';
import { signInternalRequest } from '@rp/platform';
import { DEMO_WALLETS, startSandbox } from '@rp/sandbox';
import { type Timing, measure, table } from './stats';

const TOKEN = 'bench-internal-token-0123456789abcdef';
const ADMIN = 'bench-admin-key-0123456789';
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2000);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 16);

async function start(app: string, env: Record<string, string>): Promise<AppProcess> {
  const process = new AppProcess({
    app,
    port: await freePort(),
    env: { HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'warn', INTERNAL_TOKEN: TOKEN, ...env },
  });
  await process.waitReady(60_000);
  return process;
}

/** Requests completed in `seconds` by `concurrency` loops calling `task` back to back. */
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

async function ok(response: Promise<Response>): Promise<void> {
  const answer = await response;
  await answer.arrayBuffer();
  if (answer.status !== 200) throw new Error(`unexpected status ${answer.status}`);
}

/**
 * What the gateway costs an authenticated call (key lookup from its cache, one Redis token-bucket script,
 * signing, proxying) against the same route of the subscription service called directly with the gateway's
 * signed identity; and how long buying a key takes on the sandbox (verify + settle + record + issue).
 */
async function main(): Promise<void> {
  const sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 1000 });
  const scenario = sandbox.scenario;
  if (!scenario) throw new Error('demo scenario missing');
  const subscription = await start('subscription', {
    DATABASE_URL: 'pglite://memory',
    X402_PAYMENT_ADDRESS_LEDGER: scenario.paymentReceiver,
    X402_FACILITATOR_LEDGER_SECRET_KEY: scenario.sponsor.secret,
    X402_LEDGER_NETWORK: 'ledger:testnet',
    CONTRACT_RPC_URL: sandbox.rpcUrl,
    RMS_ADMIN_API_KEY: ADMIN,
  });
  const gateway = await start('gateway', { SUBSCRIPTION_URL: subscription.url });
  try {
    const issued = await fetch(`${gateway.url}/api/v1/keys/partners`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-key': ADMIN },
      body: JSON.stringify({ email: 'bench@example.com', rateLimit: 100_000, burst: 100_000, durationDays: 1 }),
    });
    const key = (await issued.json()) as CallerIdentity & { apiKey: string };
    const identity: CallerIdentity = {
      keyId: key.keyId,
      tier: key.tier,
      rateLimit: key.rateLimit,
      burst: key.burst,
      expiresAt: key.expiresAt,
      email: 'bench@example.com',
    };
    const path = '/api/v1/keys/me';
    const direct = () => {
      const requestId = randomUUID();
      const signed = signInternalRequest({ token: TOKEN, method: 'GET', path, requestId, identity });
      return ok(fetch(`${subscription.url}${path}`, { headers: { ...signed, 'x-request-id': requestId } }));
    };
    const viaGateway = () => ok(fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${key.apiKey}` } }));

    const latency: Timing[] = [
      await measure('GET /api/v1/keys/me, direct to subscription', ROUNDS, direct, 200),
      await measure('GET /api/v1/keys/me, through the gateway', ROUNDS, viaGateway, 200),
    ];
    const directRps = await throughput(SECONDS, CONCURRENCY, direct);
    const gatewayRps = await throughput(SECONDS, CONCURRENCY, viaGateway);

    const ledger = new LedgerRpc({ rpcUrl: sandbox.rpcUrl, network: 'ledger:testnet' });
    const challenge = await fetch(`${gateway.url}/api/v1/keys/subscribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'buyer@example.com' }),
    });
    const required = JSON.parse(
      Buffer.from(challenge.headers.get('payment-required') ?? '', 'base64').toString(),
    ) as PaymentRequired;
    const purchases: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const payer = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, { index: 200 + i });
      sandbox.control.setup.fund(payer.address, 100_000_000n);
      sandbox.control.setup.mint(scenario.usdc, payer.address, 2_026_000n);
      const payment = await createExactPayment({ ledger, payer, requirements: required.accepts[0] });
      const started = performance.now();
      await ok(
        fetch(`${gateway.url}/api/v1/keys/subscribe`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'X-PAYMENT-SIGNATURE': encodeX402Header(payment) },
          body: JSON.stringify({ email: `buyer-${i}@example.com` }),
        }),
      );
      purchases.push(performance.now() - started);
    }
    purchases.sort((a, b) => a - b);

    const addedP50 = latency[1].medianMs - latency[0].medianMs;
    const addedP99 = latency[1].p99Ms - latency[0].p99Ms;
    const ratio = gatewayRps / directRps;
    process.stdout.write(`\nmachine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}\n\n`);
    process.stdout.write(`${table(latency)}\n\n`);
    process.stdout.write(
      [
        '| measurement | value |',
        '|---|---|',
        `| throughput direct (${CONCURRENCY} concurrent, ${SECONDS} s) | ${directRps.toFixed(0)} req/s |`,
        `| throughput through the gateway | ${gatewayRps.toFixed(0)} req/s |`,
        `| gateway / direct | ${(ratio * 100).toFixed(1)} % (target >= 60 %) |`,
        `| added latency p50 | ${addedP50.toFixed(2)} ms (target < 2 ms) |`,
        `| added latency p99 | ${addedP99.toFixed(2)} ms |`,
        `| purchase (verify + settle + key), median of 10, ledger closes every 1 s | ${purchases[4].toFixed(0)} ms |`,
        `| purchase, slowest of 10 | ${purchases[9].toFixed(0)} ms |`,
      ].join('\n') + '\n',
    );
    process.stdout.write(
      `${JSON.stringify({ latency, directRps, gatewayRps, ratio, addedP50, addedP99, purchasesMs: purchases })}\n`,
    );
  } finally {
    await gateway.stop();
    await subscription.stop();
    await sandbox.close();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
