import { DEFAULT_MAX_SOROBAN_TX } from './ledger/sandbox-ledger';
import { startSandbox } from './sandbox';
import { SCENARIOS, type ScenarioName } from './scenario';

/**
 * `node tools/sandbox/bin/sandbox.cjs`: runs the sandbox until SIGINT/SIGTERM. Settings: SANDBOX_PORT (4000),
 * SANDBOX_TLS_PORT (4443), SANDBOX_SMTP_PORT (2525), SANDBOX_LEDGER_INTERVAL_MS (5000, 0 = on demand),
 * SANDBOX_SCENARIO (demo | empty), SANDBOX_AGENT_URL (an agent's /status to show on the page),
 * SANDBOX_LEDGER_MAX_SOROBAN_TX (1000: Soroban transactions per ledger before surge pricing). Prints one JSON line with the addresses once it is ready.
 */
async function main(): Promise<void> {
  const scenario = (process.env['SANDBOX_SCENARIO'] ?? 'demo') as ScenarioName;
  if (!SCENARIOS.includes(scenario)) throw new Error(`SANDBOX_SCENARIO must be one of ${SCENARIOS.join(', ')}`);
  const sandbox = await startSandbox({
    port: numberSetting('SANDBOX_PORT', 4000),
    tlsPort: numberSetting('SANDBOX_TLS_PORT', 4443),
    smtpPort: numberSetting('SANDBOX_SMTP_PORT', 2525),
    ledgerIntervalMs: numberSetting('SANDBOX_LEDGER_INTERVAL_MS', 5000),
    scenario,
    agentStatusUrl: process.env['SANDBOX_AGENT_URL'] || undefined,
    maxSorobanTransactions: positiveSetting('SANDBOX_LEDGER_MAX_SOROBAN_TX', DEFAULT_MAX_SOROBAN_TX),
  });
  const ready = {
    msg: 'sandbox ready',
    url: sandbox.url,
    rpcUrl: sandbox.rpcUrl,
    secureRpcUrl: sandbox.secureRpcUrl,
    smtpPort: sandbox.smtpPort,
    scenario: sandbox.scenario ?? null,
  };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  const stop = () => {
    void sandbox.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Started by the launcher with an IPC channel: stop when the launcher goes away.
  process.once('disconnect', stop);
}

function positiveSetting(name: string, fallback: number): number {
  const value = numberSetting(name, fallback);
  if (value < 1) throw new Error(`${name} must be at least 1`);
  return value;
}

function numberSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535 * 1000)
    throw new Error(`${name} must be a non-negative integer`);
  return value;
}

main().catch((error: unknown) => {
  process.stderr.write(`sandbox failed to start: ${(error as Error).message}\n`);
  process.exit(1);
});
