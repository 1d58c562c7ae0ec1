import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Stack, StackWallet } from '@rp/dev';
import { UNIT } from '@rp/sandbox';
import { Pool } from 'undici';
import { profileFlags, residentMb, signedPost, startBenchStack } from './bench-stack';
import { profileTable, summariseProfile } from './cpu-profile';
import { type Timing, measure, table } from './stats';

const RUNS = Number(process.env['BENCH_ROUNDS'] ?? 1000);
const CONCURRENT = Number(process.env['BENCH_CONCURRENT'] ?? 100);
const SUBMISSIONS = Number(process.env['BENCH_SUBMISSIONS'] ?? 20);
/** Ledger close interval of the sandbox while transactions are followed to confirmation (the network's is 5 s). */
const LEDGER_MS = Number(process.env['BENCH_LEDGER_MS'] ?? 1000);
/** Write a V8 CPU profile of txb here (`BENCH_CPU_PROF=/tmp/prof`) and summarise where a build's time goes. */
const PROFILE_DIR = process.env['BENCH_CPU_PROF'];

/** txb's routes through the gateway with a partner key, on a keep-alive pool. */
interface TxbRun {
  stack: Stack;
  pool: Pool;
  headers: Record<string, string>;
  post(path: string, body: object): Promise<{ status: number; body: Record<string, unknown> }>;
  repay(wallet: StackWallet): ReturnType<TxbRun['post']>;
}

async function txbRun(stack: Stack): Promise<TxbRun> {
  const pool = new Pool(stack.app('gateway').url, { connections: 128, keepAliveTimeout: 30_000 });
  const { apiKey } = await stack.api.partnerKey({ email: 'bench@example.com' });
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const post: TxbRun['post'] = async (path, body) => {
    const answer = await pool.request({
      method: 'POST',
      path: `/api/v1/txb/${path}`,
      headers,
      body: JSON.stringify(body),
    });
    return { status: answer.statusCode, body: JSON.parse(await answer.body.text()) as Record<string, unknown> };
  };
  const { pool: poolAddress, usdc: tokenId } = stack.scenario;
  const repay = (wallet: StackWallet) =>
    post('build', { action: 'REPAY', walletAddress: wallet.address, poolAddress, tokenId });
  return { stack, pool, headers, post, repay };
}

const borrower = (stack: Stack) =>
  stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_000n * UNIT, extraUsdc: 20n * UNIT }, 'bench txb wallet');

/** 1. Build latency one after another through the gateway, straight to txb, and the sandbox's simulation alone. */
async function buildLatency(run: TxbRun): Promise<Timing[]> {
  const { stack, repay } = run;
  const one = borrower(stack);
  const build = await measure(
    'POST /txb/build REPAY through the gateway',
    RUNS,
    async () => {
      const answer = await repay(one);
      if (answer.status !== 200) throw new Error(`build answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    },
    50,
  );
  // The same build straight to txb with the identity the gateway would sign: what the gateway adds.
  const direct = new Pool(stack.app('txb').url, { connections: 4, keepAliveTimeout: 30_000 });
  const identity = {
    keyId: 'bench-key',
    tier: 'partner' as const,
    rateLimit: 100_000,
    burst: 100_000,
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    email: 'bench@example.com',
    account: 'partner:bench',
  };
  const { pool: poolAddress, usdc: tokenId } = stack.scenario;
  const body = JSON.stringify({ action: 'REPAY', walletAddress: one.address, poolAddress, tokenId });
  const buildDirect = await measure('POST /txb/build REPAY straight to txb (signed identity)', RUNS, async () => {
    const answer = await signedPost(direct, stack.internalToken, '/api/v1/txb/build', identity, body);
    const text = await answer.body.text();
    if (answer.statusCode !== 200) throw new Error(`direct build answered ${answer.statusCode}: ${text}`);
  });
  await direct.close();
  const built = ((await repay(one)).body['transaction'] as { transactionXdr: string }).transactionXdr;
  const simulate = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'simulateTransaction',
    params: { transaction: built },
  });
  const simulation = await measure('the sandbox alone: simulateTransaction of that REPAY', 500, async () => {
    const answer = await fetch(stack.sandbox.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: simulate,
    });
    await answer.text();
  });
  return [build, buildDirect, simulation];
}

/** 3. Signed REPAYs submitted while ledgers close every LEDGER_MS, followed to `confirmed`: ledgers and ms taken. */
async function submitToConfirmed(run: TxbRun, wallets: StackWallet[]) {
  const { stack, pool, headers, post, repay } = run;
  const ledger = stack.sandbox.ledger;
  const closer = setInterval(() => ledger.closeLedger(), LEDGER_MS);
  const ledgersTaken: number[] = [];
  const msTaken: number[] = [];
  try {
    for (const wallet of wallets) {
      const built = await repay(wallet);
      const signed = stack.sign(wallet, (built.body['transaction'] as { transactionXdr: string }).transactionXdr);
      const id = (built.body['proposal'] as { id: string }).id;
      const atSubmit = ledger.latest.sequence;
      const submittedAt = performance.now();
      const submitted = await post('submit', { transactionXdr: signed });
      if (submitted.status !== 200) throw new Error(`submit answered ${submitted.status}`);
      for (;;) {
        const path = `/api/v1/txb/proposals?wallet=${wallet.address}`;
        const listed = await pool.request({ method: 'GET', path, headers });
        const { proposals } = JSON.parse(await listed.body.text()) as {
          proposals: { id: string; status: string; ledger?: number }[];
        };
        const found = proposals.find((proposal) => proposal.id === id);
        if (found?.status === 'confirmed') {
          ledgersTaken.push((found.ledger ?? atSubmit) - atSubmit);
          msTaken.push(performance.now() - submittedAt);
          break;
        }
        if (found?.status === 'failed') throw new Error(`proposal ${id} failed`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    clearInterval(closer);
  }
  return { ledgersTaken: ledgersTaken.sort((a, b) => a - b), msTaken: msTaken.sort((a, b) => a - b) };
}

/**
 * txb through the gateway on the sandbox ledger, as real processes (`NODE_ENV=production`, `LOG_LEVEL=warn`):
 * 1. build latency: REPAY builds one after another (read the pool, prices, position, balance and account; plan;
 *    simulate; store the proposal in Redis), against the sandbox's simulation alone;
 * 2. `CONCURRENT` builds at once, for distinct wallets, none refused;
 * 3. submit-to-confirmed: signed REPAYs submitted while the sandbox closes a ledger every `LEDGER_MS`, counted in
 *    ledgers from the one current at submission to the one the tracker reports.
 * 4. txb's resident memory after ready and after the load.
 */
async function main(): Promise<void> {
  const stack = await startBenchStack({
    apps: ['subscription', 'txb', 'gateway'],
    ledgerIntervalMs: 0,
    redisDb: 7,
    nodeArgs: { txb: profileFlags(PROFILE_DIR, 'txb') },
  });
  const txb = stack.app('txb');
  const readyMb = await residentMb(txb);
  const run = await txbRun(stack);
  try {
    const [build, buildDirect, simulation] = await buildLatency(run);
    // 2. Concurrent builds for distinct wallets.
    const many = Array.from({ length: CONCURRENT }, () => borrower(stack));
    const burstStarted = performance.now();
    const refused = (await Promise.all(many.map((wallet) => run.repay(wallet)))).filter((a) => a.status !== 200);
    const burstMs = performance.now() - burstStarted;
    const { ledgersTaken, msTaken } = await submitToConfirmed(run, many.slice(0, SUBMISSIONS));
    const rssMb = await residentMb(txb);
    if (process.env['BENCH_HEAP']) await printHeap(txb.url);
    report({ build, buildDirect, simulation, burstMs, refused, ledgersTaken, msTaken, readyMb, rssMb });
  } finally {
    await run.pool.close();
    await stack.close();
    if (PROFILE_DIR) {
      const summary = summariseProfile(join(PROFILE_DIR, 'txb.cpuprofile'));
      process.stdout.write(`\n${profileTable('txb', summary, RUNS * 2 + CONCURRENT)}\n`);
    }
  }
}

async function printHeap(url: string): Promise<void> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const lines = metrics.split('\n').filter((line) => /^nodejs_(heap_size|external)/.test(line));
  process.stdout.write(lines.join('\n') + '\n');
}

function report(results: {
  build: Timing;
  buildDirect: Timing;
  simulation: Timing;
  burstMs: number;
  refused: unknown[];
  ledgersTaken: number[];
  msTaken: number[];
  readyMb: number;
  rssMb: number;
}): void {
  const { build, buildDirect, simulation, burstMs, refused, ledgersTaken, msTaken, readyMb, rssMb } = results;
  process.stdout.write(`\nmachine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}\n\n`);
  process.stdout.write(`${table([build, buildDirect, simulation])}\n\n`);
  process.stdout.write(
    [
      '| measurement | value |',
      '|---|---|',
      `| **build through the gateway, p50 / p99** (targets <= 15 / 50 ms) | **${build.medianMs} / ${build.p99Ms} ms** |`,
      `| ${CONCURRENT} concurrent builds (distinct wallets): refused / wall time | ${refused.length} / ${burstMs.toFixed(0)} ms |`,
      `| submit to confirmed, ${SUBMISSIONS} REPAYs, ledgers (median / max), a ledger every ${LEDGER_MS} ms | ${ledgersTaken[Math.floor(ledgersTaken.length / 2)]} / ${ledgersTaken.at(-1)} |`,
      `| submit to confirmed, ms (median / max) | ${msTaken[Math.floor(msTaken.length / 2)].toFixed(0)} / ${(msTaken.at(-1) ?? 0).toFixed(0)} |`,
      `| txb resident memory after ready / after the run (budget 200 MB) | ${readyMb.toFixed(0)} / ${rssMb.toFixed(0)} MB |`,
    ].join('\n') + '\n',
  );
  process.stdout.write(
    `${JSON.stringify({ build, buildDirect, simulation, burstMs, refused: refused.length, ledgersTaken, msTaken, readyMb, rssMb })}\n`,
  );
  if (refused.length > 0) throw new Error(`${refused.length} concurrent builds refused: ${JSON.stringify(refused[0])}`);
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
