import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AppProcess, freePort } from '@rp/dev';
import { LedgerWallet } from '@rp/ledger';
import { signInternalRequest } from '@rp/platform';
import { DEMO_WALLETS, type LoadedScenario, UNIT, startSandbox } from '@rp/sandbox';
import { Networks, TransactionBuilder } from '@stellar/stellar-sdk';
import { Pool } from 'undici';
import { profileTable, summariseProfile } from './cpu-profile';
import { measure, table } from './stats';

const TOKEN = 'bench-internal-token-0123456789abcdef';
const ADMIN = 'bench-admin-key-0123456789';
const RUNS = Number(process.env['BENCH_ROUNDS'] ?? 1000);
const CONCURRENT = Number(process.env['BENCH_CONCURRENT'] ?? 100);
const SUBMISSIONS = Number(process.env['BENCH_SUBMISSIONS'] ?? 20);
/** Ledger close interval of the sandbox while transactions are followed to confirmation (the network's is 5 s). */
const LEDGER_MS = Number(process.env['BENCH_LEDGER_MS'] ?? 1000);
/** The bench's own Redis database for txb's proposals. */
const REDIS_URL = (() => {
  const url = new URL(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379');
  url.pathname = '/7';
  return url.toString();
})();

/** Resident memory of an app, from its own `/metrics`. */
async function residentMb(app: AppProcess): Promise<number> {
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  return Number(/^process_resident_memory_bytes(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1] ?? 0) / 1e6;
}

/** Write a V8 CPU profile of txb here (`BENCH_CPU_PROF=/tmp/prof`) and summarise where a build's time goes. */
const PROFILE_DIR = process.env['BENCH_CPU_PROF'];

async function start(app: string, env: Record<string, string>): Promise<AppProcess> {
  const started = new AppProcess({
    app,
    port: await freePort(),
    nodeArgs:
      PROFILE_DIR && app === 'txb'
        ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${app}.cpuprofile`]
        : [],
    env: { HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'warn', INTERNAL_TOKEN: TOKEN, ...env },
  });
  await started.waitReady(60_000);
  return started;
}

/**
 * txb through the gateway on the sandbox ledger, as real processes (`NODE_ENV=production`, `LOG_LEVEL=warn`):
 * 1. build latency: REPAY builds one after another (read the pool, prices, position, balance and account; plan;
 *    simulate; store the proposal in Redis), against the sandbox's simulation alone;
 * 2. `CONCURRENT` builds at once, for distinct wallets, none refused;
 * 3. submit-to-confirmed: signed REPAYs submitted while the sandbox closes a ledger every `LEDGER_MS`, counted in
 *    ledgers from the one current at submission to the one the tracker reports.
 */
async function main(): Promise<void> {
  const sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
  const scenario = sandbox.scenario as LoadedScenario;
  const subscription = await start('subscription', {
    DATABASE_URL: 'sqlite://memory',
    X402_LEDGER_NETWORK: 'ledger:testnet',
    CONTRACT_RPC_URL: sandbox.rpcUrl,
    RMS_ADMIN_API_KEY: ADMIN,
  });
  const txb = await start('txb', {
    REDIS_URL,
    CONTRACT_RPC_URL: sandbox.rpcUrl,
    TXB_UNWIND_RECEIVER: scenario.swapReceiver,
  });
  const readyMb = await residentMb(txb);
  const gateway = await start('gateway', { SUBSCRIPTION_URL: subscription.url, TXB_URL: txb.url });
  const pool = new Pool(gateway.url, { connections: 128, keepAliveTimeout: 30_000 });
  let closer: NodeJS.Timeout | undefined;
  try {
    const issued = await fetch(`${gateway.url}/api/v1/keys/partners`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-key': ADMIN },
      body: JSON.stringify({ email: 'bench@example.com', rateLimit: 100_000, burst: 100_000, durationDays: 1 }),
    });
    if (issued.status !== 201) throw new Error(`partner key: ${issued.status} ${await issued.text()}`);
    const { apiKey } = (await issued.json()) as { apiKey: string };
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };

    let wallets = 0;
    const borrower = () => {
      wallets += 1;
      const wallet = LedgerWallet.fromMnemonic(DEMO_WALLETS.healthy.mnemonic, { index: 1000 + wallets });
      sandbox.control.setup.fund(wallet.address, 100n * UNIT);
      sandbox.control.setup.openPosition(scenario.pool, {
        user: wallet.address,
        supplyCollateral: [{ asset: scenario.xlm, amount: 10_000n * UNIT }],
        borrow: [{ asset: scenario.usdc, amount: 1_000n * UNIT }],
      });
      sandbox.control.setup.mint(scenario.usdc, wallet.address, 20n * UNIT);
      return wallet;
    };
    const post = async (path: string, body: object) => {
      const answer = await pool.request({
        method: 'POST',
        path: `/api/v1/txb/${path}`,
        headers,
        body: JSON.stringify(body),
      });
      const text = await answer.body.text();
      return { status: answer.statusCode, body: JSON.parse(text) as Record<string, unknown> };
    };
    const repay = (wallet: LedgerWallet) =>
      post('build', {
        action: 'REPAY',
        walletAddress: wallet.address,
        poolAddress: scenario.pool,
        tokenId: scenario.usdc,
      });

    // 1. Build latency, one after another (one wallet: proposals are cheap to keep).
    const one = borrower();
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
    const direct = new Pool(txb.url, { connections: 4, keepAliveTimeout: 30_000 });
    const identity = {
      keyId: 'bench-key',
      tier: 'partner' as const,
      rateLimit: 100_000,
      burst: 100_000,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      email: 'bench@example.com',
      account: 'partner:bench',
    };
    const repayBody = JSON.stringify({
      action: 'REPAY',
      walletAddress: one.address,
      poolAddress: scenario.pool,
      tokenId: scenario.usdc,
    });
    const buildDirect = await measure('POST /txb/build REPAY straight to txb (signed identity)', RUNS, async () => {
      const requestId = randomUUID();
      const path = '/api/v1/txb/build';
      const answer = await direct.request({
        method: 'POST',
        path,
        headers: {
          ...signInternalRequest({ token: TOKEN, method: 'POST', path, requestId, identity, body: repayBody }),
          'x-request-id': requestId,
          'content-type': 'application/json',
        },
        body: repayBody,
      });
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
      const answer = await fetch(sandbox.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: simulate,
      });
      await answer.text();
    });

    // 2. Concurrent builds for distinct wallets.
    const many = Array.from({ length: CONCURRENT }, () => borrower());
    const burstStarted = performance.now();
    const answers = await Promise.all(many.map((wallet) => repay(wallet)));
    const burstMs = performance.now() - burstStarted;
    const refused = answers.filter((answer) => answer.status !== 200);

    // 3. Submit to confirmed, in ledgers, with ledgers closing on their own.
    closer = setInterval(() => sandbox.ledger.closeLedger(), LEDGER_MS);
    const ledgersTaken: number[] = [];
    const msTaken: number[] = [];
    for (const wallet of many.slice(0, SUBMISSIONS)) {
      const built = await repay(wallet);
      const tx = TransactionBuilder.fromXDR(
        (built.body['transaction'] as { transactionXdr: string }).transactionXdr,
        Networks.TESTNET,
      );
      wallet.signTransaction(tx);
      const id = (built.body['proposal'] as { id: string }).id;
      const atSubmit = sandbox.ledger.latest.sequence;
      const submittedAt = performance.now();
      const submitted = await post('submit', { transactionXdr: tx.toXDR() });
      if (submitted.status !== 200) throw new Error(`submit answered ${submitted.status}`);
      for (;;) {
        const listed = await pool.request({
          method: 'GET',
          path: `/api/v1/txb/proposals?wallet=${wallet.address}`,
          headers,
        });
        const proposals = (
          JSON.parse(await listed.body.text()) as { proposals: { id: string; status: string; ledger?: number }[] }
        ).proposals;
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
    ledgersTaken.sort((a, b) => a - b);
    msTaken.sort((a, b) => a - b);

    process.stdout.write(`\nmachine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}\n\n`);
    const rssMb = await residentMb(txb);
    if (process.env['BENCH_HEAP']) {
      const metrics = await (await fetch(`${txb.url}/metrics`)).text();
      process.stdout.write(
        metrics
          .split('\n')
          .filter((line) => /^nodejs_(heap_size|external)/.test(line))
          .join('\n') + '\n',
      );
    }
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
    if (refused.length > 0)
      throw new Error(`${refused.length} concurrent builds refused: ${JSON.stringify(refused[0])}`);
  } finally {
    clearInterval(closer);
    await pool.close();
    await gateway.stop();
    await txb.stop();
    if (PROFILE_DIR) {
      const summary = summariseProfile(join(PROFILE_DIR, 'txb.cpuprofile'));
      process.stdout.write(`\n${profileTable('txb', summary, RUNS * 2 + CONCURRENT)}\n`);
    }
    await subscription.stop();
    await sandbox.close();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
