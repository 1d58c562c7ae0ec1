import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { AppProcess, WORKSPACE_ROOT, freePort } from '@rp/dev';
import { LedgerWallet } from '@rp/ledger';
import { DEMO_PRICES, type LoadedScenario, UNIT, type RunningSandbox, startSandbox } from '@rp/sandbox';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { Address, nativeToScVal } from '@stellar/stellar-sdk';

const ADMIN = 'bench-admin-key-0123456789';
const TOKEN = 'bench-internal-token-0123456789abcdef';
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 8);
/** Ledger close interval; the agent polls at the same pace (the defaults' ratio: 5 s ledgers, 5 s polls). */
const LEDGER_MS = Number(process.env['BENCH_LEDGER_MS'] ?? 1000);
const REDIS_URL = (() => {
  const url = new URL(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379');
  url.pathname = '/6';
  return url.toString();
})();

async function start(app: string, env: Record<string, string>): Promise<AppProcess> {
  const started = new AppProcess({
    app,
    port: await freePort(),
    env: { HOST: '127.0.0.1', NODE_ENV: 'production', LOG_LEVEL: 'info', INTERNAL_TOKEN: TOKEN, ...env },
  });
  await started.waitReady(60_000);
  return started;
}

/** The endangered demo position (health factor about 1.12, high) for a fresh wallet holding no USDC but the key's. */
function endangered(sandbox: RunningSandbox, scenario: LoadedScenario): string {
  const mnemonic = generateMnemonic(wordlist);
  const wallet = LedgerWallet.fromMnemonic(mnemonic);
  const setup = sandbox.control.setup;
  setup.fund(wallet.address, 100n * UNIT, 'bench agent wallet');
  setup.openPosition(scenario.pool, {
    user: wallet.address,
    supplyCollateral: [{ asset: scenario.xlm, amount: 10_000n * UNIT }],
    borrow: [{ asset: scenario.usdc, amount: 1_900n * UNIT }],
  });
  sandbox.ledger.invokePrivileged(scenario.usdc, 'transfer', [
    new Address(wallet.address).toScVal(),
    new Address(scenario.paymentReceiver).toScVal(),
    nativeToScVal(1_900n * UNIT, { type: 'i128' }),
  ]);
  setup.mint(scenario.usdc, wallet.address, 1n * UNIT);
  return mnemonic;
}

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
  const sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: LEDGER_MS });
  const scenario = sandbox.scenario as LoadedScenario;
  const subscription = await start('subscription', {
    DATABASE_URL: 'sqlite://memory',
    X402_PAYMENT_ADDRESS_LEDGER: scenario.paymentReceiver,
    X402_FACILITATOR_LEDGER_SECRET_KEY: scenario.sponsor.secret,
    X402_LEDGER_NETWORK: 'ledger:testnet',
    CONTRACT_RPC_URL: sandbox.rpcUrl,
    RMS_ADMIN_API_KEY: ADMIN,
  });
  const txb = await start('txb', { REDIS_URL, CONTRACT_RPC_URL: sandbox.rpcUrl, TXB_UNWIND_RECEIVER: scenario.swapReceiver });
  const notifications = await start('notifications', {
    REDIS_URL,
    DATABASE_URL: 'sqlite://memory',
    NOTIFICATIONS_ROLE: 'all',
    NOTIFICATIONS_KEY_PREFIX: 'agentbench',
    NOTIFICATIONS_ENCRYPTION_KEY: 'ab'.repeat(32),
    CONTRACT_RPC_URL: sandbox.rpcUrl,
    RMS_POOLS: scenario.pool,
    RMS_ADMIN_API_KEY: ADMIN,
  });
  const gateway = await start('gateway', {
    REDIS_URL,
    SUBSCRIPTION_URL: subscription.url,
    TXB_URL: txb.url,
    NOTIFICATIONS_URL: notifications.url,
  });
  const rounds: Round[] = [];
  try {
    for (const [path, slippage, price] of [
      ['presigned', '500', 2_900_000n],
      ['rebuilt', '100', 2_700_000n],
    ] as const) {
      for (let round = 0; round < ROUNDS; round += 1) {
        sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, DEMO_PRICES.xlm);
        const agent = await start('agent', {
          DATABASE_URL: 'sqlite://memory',
          LEDGER_MNEMONIC: endangered(sandbox, scenario),
          CONTRACT_RPC_URL: sandbox.secureRpcUrl,
          NODE_EXTRA_CA_CERTS: join(WORKSPACE_ROOT, 'tools/sandbox/tls/loopback.crt'),
          SERVICE_BASE_URL: gateway.url,
          SERVICE_EMAIL: `bench-${path}-${round}@example.com`,
          POLL_INTERVAL_MS: String(LEDGER_MS),
          SLIPPAGE: slippage,
          UNWIND_RECEIVER: scenario.swapReceiver,
          // No WATCHED_POOLS: the signing rule trusts the pool because the sandbox's pool factory knows it.
          BLEND_POOL_FACTORY: scenario.poolFactory,
        });
        try {
          await until('a presigned close', () => (logged(agent, 'presigned close ready').length > 0 ? true : undefined));
          const before = sandbox.ledger.latest.sequence;
          sandbox.control.setup.setPrice(scenario.oracle, scenario.xlm, price);
          const confirmed = await until('the confirmed close', () => logged(agent, 'close confirmed')[0]);
          const sent = logged(agent, 'close sent').at(-1) ?? {};
          // The agent starts in service mode and logs only changes of mode.
          const modes = logged(agent, 'mode: degraded').length === 0;
          rounds.push({
            path: String(sent['path']),
            mode: modes ? 'service' : 'degraded at times',
            via: String(sent['via']),
            decisionToSendMs: Number(sent['decisionToSendMs']),
            decisionToAcceptedMs: Number(sent['decisionToAcceptedMs']),
            ledgers: Number(confirmed['ledger']) - before,
            rssMb: rssMb(agent.pid),
          });
        } finally {
          await agent.stop();
        }
      }
    }
  } finally {
    await gateway.stop();
    await notifications.stop();
    await txb.stop();
    await subscription.stop();
    await sandbox.close();
  }
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
