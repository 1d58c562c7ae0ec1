import { type LedgerSandbox, startLedgerSandbox } from './service-processes.int-support';

/** The sandbox's per-ledger Soroban limit during the storm, and the storm: 3x the limit at 10x the minimum fee. */
export const STORM_LIMIT = 5;
export const STORM = { transactionsPerLedger: 15, inclusionFee: 1000, ledgers: 100_000 };

/** Resolves once `check` holds, asking every 100 ms; throws after `timeoutMs`. */
export async function until(check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A call to the sandbox's control API; a non-2xx answer throws with its body. */
export async function control(ledger: LedgerSandbox, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${ledger.sandbox.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/**
 * A sandbox ledger under the storm: the per-ledger limit set, the storm started, and returned once the storm's
 * charged fees are what `getFeeStats` reports as p95 (waited on the ledger, not a clock).
 */
export async function startStormLedger(): Promise<LedgerSandbox> {
  const ledger = await startLedgerSandbox();
  await control(ledger, 'POST', '/control/ledger/limits', { maxSorobanTransactions: STORM_LIMIT });
  await control(ledger, 'POST', '/control/congestion', STORM);
  await until(
    async () => BigInt((await ledger.rpc.getFeeStats()).sorobanInclusionFee.p95) >= BigInt(STORM.inclusionFee),
  );
  return ledger;
}

/** Stops the storm and the sandbox (whatever of it started). */
export async function stopStormLedger(ledger: LedgerSandbox | undefined): Promise<void> {
  if (!ledger) return;
  await control(ledger, 'DELETE', '/control/congestion').catch(() => undefined);
  await ledger.close();
}
