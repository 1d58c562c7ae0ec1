import { cpus, loadavg } from 'node:os';
import type { Stack } from '@rp/dev';
import { DEMO_PRICES, UNIT } from '@rp/sandbox';
import { startBenchStack } from './bench-stack';
import { quantile } from './storm-report';
import { included, until } from './storm-rounds';

const RUNS = Number(process.env['BENCH_ROUNDS'] ?? 20);
const LEDGER_MS = Number(process.env['BENCH_LEDGER_MS'] ?? 1000);
const POLL_MS = Number(process.env['BENCH_POLL_MS'] ?? 2500);
/** Each run drops the XLM price by this factor: from the rescue's 1.10 to about 0.97, under 1.0. */
const DROP = { numerator: 88n, denominator: 100n };

interface Status {
  lastPollAt: string | null;
  subscription: { active: boolean };
  positions: { healthFactor: number | null; riskLevel: string }[];
  recentCloses: { outcome: string; txHash: string | null; riskSnapshot: { ledger: number | null } }[];
}

interface RescueRun {
  /** Ledgers from the one holding `new_auction` to the one the agent decided at, and to the one holding the rescue. */
  ledgersToDecision: number;
  ledgersToIncluded: number;
  secondsToIncluded: number;
  healthFactorAfter: number | null;
}

async function includedAt(stack: Stack, hash: string): Promise<number | undefined> {
  return (await included(stack, hash))?.ledger;
}

/**
 * Auction seen to rescue included (issue 19, Numbers): one agent-protected wallet (it keeps the USDC it borrowed)
 * and its agent as real processes with subscription, txb and gateway on the sandbox. Each run, right after one of
 * the agent's polls, the XLM price drops the wallet under 1.0 and the sandbox's liquidator sends `new_auction`; the
 * agent sees the auction at its next poll and rescues (repays to its critical bound, deletes the auction). Measured
 * in ledgers from the ledger holding `new_auction` to the one holding the rescue; the next run drops the price again
 * from where the rescue left the wallet. Polls are slower than ledgers here so that the price drop is never seen
 * before the auction (the agent would close first, as it should).
 */
async function main(): Promise<void> {
  const stack = await startBenchStack({
    apps: ['subscription', 'txb', 'gateway'],
    ledgerIntervalMs: LEDGER_MS,
    redisDb: 8,
    env: { gateway: { KEY_CACHE_TTL_MS: '1000' }, agent: { POLL_INTERVAL_MS: String(POLL_MS), LOCK_LEASE_MS: '3000' } },
  });
  const { scenario, sandbox } = stack;
  const load = loadavg()[0];
  const runs: RescueRun[] = [];
  const closedAt = new Map<number, number>();
  sandbox.ledger.on('close', () => closedAt.set(sandbox.ledger.latest.sequence, Date.now()));
  let price = (DEMO_PRICES.xlm * 26n) / 30n;
  sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, DEMO_PRICES.xlm);
  const owner = stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, extraUsdc: 1n * UNIT }, 'rescue bench wallet');
  const agent = await stack.start('agent', {
    env: { LEDGER_MNEMONIC: owner.mnemonic, SERVICE_EMAIL: `rescue-bench-${Date.now()}@example.com` },
  });
  const status = async () => (await (await fetch(`${agent.url}/status`)).json()) as Status;
  try {
    await until('a key and the position', async () => {
      const s = await status();
      return s.subscription.active && s.positions.length === 1 ? true : undefined;
    });
    for (let run = 0; run < RUNS; run += 1) {
      const before = (await status()).recentCloses.length;
      const polled = (await status()).lastPollAt;
      await until('the next poll', async () => ((await status()).lastPollAt !== polled ? true : undefined));
      sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, price);
      const started = sandbox.control.liquidator.startAuction(scenario.pool, owner.address);
      const auctionLedger = await until('the auction on the ledger', () => includedAt(stack, started.hash));
      const rescue = await until('a confirmed rescue', async () => {
        const closes = (await status()).recentCloses;
        return closes.length > before && closes[0].outcome === 'confirmed' ? closes[0] : undefined;
      });
      const ledger = await until('the rescue on the ledger', () => includedAt(stack, rescue.txHash ?? ''));
      const closeTime = await until('the ledger clock', () => closedAt.get(ledger));
      const auctionTime = closedAt.get(auctionLedger) ?? closeTime;
      const position = await stack.position(owner.address);
      runs.push({
        ledgersToDecision: (rescue.riskSnapshot.ledger ?? ledger) - auctionLedger,
        ledgersToIncluded: ledger - auctionLedger,
        secondsToIncluded: (closeTime - auctionTime) / 1000,
        healthFactorAfter: position.healthFactor === null ? null : Number(position.healthFactor) / 1e7,
      });
      process.stderr.write(`run ${run + 1}: ${JSON.stringify(runs[runs.length - 1])}\n`);
      price = (price * DROP.numerator) / DROP.denominator;
    }
  } finally {
    await agent.stop();
    await stack.close();
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${load.toFixed(2)} at start`;
  const of = (pick: (run: RescueRun) => number) => runs.map(pick);
  const row = (name: string, values: number[]) =>
    `| ${name} | ${quantile(values, 0.5)} | ${quantile(values, 0.99)} | ${Math.max(...values)} |`;
  const seconds = of((r) => Math.round(r.secondsToIncluded * 100) / 100);
  process.stdout.write(
    [
      `Auction seen to rescue included: ${runs.length} runs, ledgers every ${LEDGER_MS} ms, agent polls every ${POLL_MS} ms; ${machine}.`,
      '',
      '| from the ledger holding new_auction | p50 | p99 | max |',
      '|---|---|---|---|',
      row('to the ledger the agent decided at, ledgers', of((r) => r.ledgersToDecision)),
      row('to the ledger holding the rescue, ledgers', of((r) => r.ledgersToIncluded)),
      row('to the close of the ledger holding the rescue, s', seconds),
      '',
      '```json',
      JSON.stringify({ ledgerMs: LEDGER_MS, pollMs: POLL_MS, runs }, null, 2),
      '```',
      '',
    ].join('\n'),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
