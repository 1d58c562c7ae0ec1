import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import type { AppProcess, Stack } from '@rp/dev';
import { DEMO_PRICES, UNIT } from '@rp/sandbox';
import { startBenchStack } from './bench-stack';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 8);
/** Ledger close interval; the agent polls at the same pace (the defaults' ratio: 5 s ledgers, 5 s polls). */
const LEDGER_MS = Number(process.env['BENCH_LEDGER_MS'] ?? 1000);

/** The endangered demo position (health factor about 1.12, high) for a fresh wallet holding no USDC but the key's. */
const endangered = (stack: Stack) =>
  stack.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, keepUsdc: 0n, extraUsdc: 1n * UNIT }, 'bench agent wallet')
    .mnemonic;

interface Round {
  path: string;
  mode: string;
  via: string;
  decisionToSendMs: number;
  decisionToAcceptedMs: number;
  ledgers: number;
  rssMb: number;
}

const logged = (agent: AppProcess, msg: string) =>
  agent.lines.map((line) => line.slice(line.indexOf('{'))).filter((line) => line.includes(`"msg":"${msg}"`)).map((line) => JSON.parse(line) as Record<string, unknown>);

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const rssMb = (pid: number | undefined) =>
  pid ? Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)]).toString().trim()) / 1024 : 0;

/** One round: a fresh endangered wallet and its agent; the price drops to `price` once the close is presigned. */
async function round(stack: Stack, path: string, slippage: string, price: bigint, index: number): Promise<Round> {
  const { scenario, sandbox } = stack;
  sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, DEMO_PRICES.xlm);
  const agent = await stack.start('agent', {
    env: {
      LEDGER_MNEMONIC: endangered(stack),
      SERVICE_EMAIL: `bench-${path}-${index}@example.com`,
      POLL_INTERVAL_MS: String(LEDGER_MS),
      SLIPPAGE: slippage,
      // No WATCHED_POOLS: the signing rule trusts the pool because the sandbox's pool factory knows it.
      WATCHED_POOLS: undefined,
    },
  });
  try {
    await until('a presigned close', () => (logged(agent, 'presigned close ready').length > 0 ? true : undefined));
    const before = sandbox.ledger.latest.sequence;
    sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, price);
    const confirmed = await until('the confirmed close', () => logged(agent, 'close confirmed')[0]);
    const sent = logged(agent, 'close sent').at(-1) ?? {};
    // The agent starts in service mode and logs only changes of mode.
    const modes = logged(agent, 'mode: degraded').length === 0;
    return {
      path: String(sent['path']),
      mode: modes ? 'service' : 'degraded at times',
      via: String(sent['via']),
      decisionToSendMs: Number(sent['decisionToSendMs']),
      decisionToAcceptedMs: Number(sent['decisionToAcceptedMs']),
      ledgers: Number(confirmed['ledger']) - before,
      rssMb: rssMb(agent.pid),
    };
  } finally {
    await agent.stop();
  }
}

/**
 * The agent as a real process (`NODE_ENV=production`) with the real subscription, txb, notifications (its risk
 * route; no WATCHED_POOLS, so the agent knows the pool from the service) and gateway on the sandbox
 * ledger, one fresh endangered wallet (and agent) per round. The agent buys its key, presigns the close while the
 * position is `high`, then the XLM price drops to critical:
 * - presigned: to $0.29 (-3.3 %) with SLIPPAGE 500: the presigned close is sent as it is;
 * - rebuilt: to $0.27 (-10 %) with SLIPPAGE 100: beyond what the presigned close absorbs, it is built, signed, sent.
 * Measured: decision to `sendTransaction` (the agent's own clock, from its log), and the ledgers from the one open
 * when the price changed to the one holding the confirmed close; and the agent's resident memory.
 */
async function main(): Promise<void> {
  const stack = await startBenchStack({
    apps: ['subscription', 'txb', 'notifications', 'gateway'],
    roles: { notifications: ['all'] },
    ledgerIntervalMs: LEDGER_MS,
    redisDb: 6,
    env: {
      all: { LOG_LEVEL: 'info' },
      notifications: { NOTIFICATIONS_KEY_PREFIX: 'agentbench', NOTIFICATIONS_ENCRYPTION_KEY: 'ab'.repeat(32) },
    },
  });
  const rounds: Round[] = [];
  try {
    for (const [path, slippage, price] of [
      ['presigned', '500', 2_900_000n],
      ['rebuilt', '100', 2_700_000n],
    ] as const) {
      for (let index = 0; index < ROUNDS; index += 1) rounds.push(await round(stack, path, slippage, price, index));
    }
  } finally {
    await stack.close();
  }
  report(rounds);
}

function report(rounds: Round[]): void {
  const lines = [
    '| close path | rounds | sent via | decision to send, median / max ms | decision to accepted by the network, median / max ms | price change to confirmed, ledgers (median, max) | agent RSS max MB |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const path of ['presigned', 'rebuilt']) {
    const of = rounds.filter((round) => round.path === path);
    if (of.length === 0) continue;
    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    const ms = sorted(of.map((round) => round.decisionToSendMs));
    const accepted = sorted(of.map((round) => round.decisionToAcceptedMs));
    const ledgers = sorted(of.map((round) => round.ledgers));
    const median = (values: number[]) => values[Math.floor(values.length / 2)];
    const via = [...new Set(of.map((round) => `${round.via} (${round.mode} mode)`))].join(', ');
    lines.push(
      `| ${path} | ${of.length} | ${via} | ${median(ms)} / ${ms.at(-1)} | ${median(accepted)} / ${accepted.at(-1)} | ${median(ledgers)}, ${ledgers.at(-1)} | ${Math.max(...of.map((round) => Math.round(round.rssMb)))} |`,
    );
  }
  process.stdout.write(
    `agent bench: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ledger every ${LEDGER_MS} ms, agent polls every ${LEDGER_MS} ms\n\n${lines.join('\n')}\n\n${JSON.stringify(rounds)}\n`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
