import { cpus, loadavg } from 'node:os';
import { startBenchStack } from './bench-stack';
import {
  type CloseRound,
  LIMIT,
  type PurchaseRound,
  closeRound,
  ledgerClock,
  purchaseRound,
  startStorm,
} from './storm-rounds';
import { stormReport } from './storm-report';

const CLOSES = Number(process.env['BENCH_ROUNDS'] ?? 20);
const QUIET_CLOSES = Number(process.env['BENCH_QUIET_ROUNDS'] ?? 5);
const PURCHASES = Number(process.env['BENCH_PURCHASES'] ?? 5);
const LEDGER_MS = Number(process.env['BENCH_LEDGER_MS'] ?? 2000);

/**
 * Closes and purchases under congestion (issue 18): the agent, subscription, txb and gateway as real processes on
 * the sandbox ledger, which holds LIMIT Soroban transactions per ledger. Quiet first (no storm), then a storm of 3x
 * the capacity at 10x the minimum fee. Per close: a fresh endangered wallet and its agent, the price drops once the
 * close is presigned; measured from the drop (and from the agent's decision) to the ledger holding the close, and
 * the fee it paid. Per purchase: a fresh wallet buys a key; settle time and the sponsor's fee.
 */
async function main(): Promise<void> {
  const stack = await startBenchStack({
    apps: ['subscription', 'txb', 'gateway'],
    ledgerIntervalMs: LEDGER_MS,
    redisDb: 7,
    sandbox: { maxSorobanTransactions: LIMIT },
    env: { gateway: { KEY_CACHE_TTL_MS: '1000' }, agent: { POLL_INTERVAL_MS: '1000', LOCK_LEASE_MS: '3000' } },
  });
  const closedAt = ledgerClock(stack);
  const closes: Record<'quiet' | 'storm', CloseRound[]> = { quiet: [], storm: [] };
  const purchases: Record<'quiet' | 'storm', PurchaseRound[]> = { quiet: [], storm: [] };
  const load = loadavg()[0];
  try {
    for (const phase of ['quiet', 'storm'] as const) {
      if (phase === 'storm') await startStorm(stack);
      const rounds = phase === 'quiet' ? QUIET_CLOSES : CLOSES;
      for (let i = 0; i < rounds; i += 1) closes[phase].push(await closeRound(stack, closedAt, i));
      for (let i = 0; i < PURCHASES; i += 1) purchases[phase].push(await purchaseRound(stack, closedAt, i));
    }
  } finally {
    await stack.close();
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${load.toFixed(2)} at start`;
  process.stdout.write(stormReport({ machine, ledgerMs: LEDGER_MS, closes, purchases }));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
