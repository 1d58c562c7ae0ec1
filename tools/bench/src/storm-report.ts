import type { CloseRound, PurchaseRound } from './storm-rounds';
import { LIMIT, STORM } from './storm-rounds';

type Phases<T> = Record<'quiet' | 'storm', T[]>;

/** The value at quantile `q` (nearest rank) of `values`. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

const p = (values: readonly number[]) => `${quantile(values, 0.5)} / ${quantile(values, 0.99)}`;
const seconds = (values: readonly number[]) => p(values.map((value) => Math.round(value * 100) / 100));
const median = (values: readonly bigint[]) => quantile(values.map(Number), 0.5);

/** The storm bench's results as Markdown tables and JSON. */
export function stormReport(run: {
  machine: string;
  ledgerMs: number;
  closes: Phases<CloseRound>;
  purchases: Phases<PurchaseRound>;
}): string {
  const closes = [
    '| ledger | closes | price drop to included, ledgers p50 / p99 | decision to included, ledgers p50 / p99 | price drop to included, s p50 / p99 | inclusion bid, stroops median (max) | fee charged per close, stroops median (max) | attempts max |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const purchases = [
    '| ledger | purchases | request to settled, ledgers p50 / max | request to settled, s p50 / max | sponsor cost, stroops median (max) |',
    '|---|---|---|---|---|',
  ];
  for (const phase of ['quiet', 'storm'] as const) {
    const of = run.closes[phase];
    if (of.length > 0) {
      const max = (values: bigint[]) => values.reduce((a, b) => (b > a ? b : a), 0n);
      closes.push(
        `| ${phase} | ${of.length} | ${p(of.map((r) => r.ledgersFromDrop))} | ${p(of.map((r) => r.ledgersFromDecision))} | ${seconds(of.map((r) => r.secondsFromDrop))} | ${median(of.map((r) => r.bid))} (${max(of.map((r) => r.bid))}) | ${median(of.map((r) => r.charged))} (${max(of.map((r) => r.charged))}) | ${Math.max(...of.map((r) => r.attempts))} |`,
      );
    }
    const bought = run.purchases[phase];
    if (bought.length > 0) {
      const costs = bought.map((r) => r.sponsorCost);
      purchases.push(
        `| ${phase} | ${bought.length} | ${p(bought.map((r) => r.ledgers))} | ${seconds(bought.map((r) => r.seconds))} | ${median(costs)} (${costs.reduce((a, b) => (b > a ? b : a), 0n)}) |`,
      );
    }
  }
  const json = JSON.stringify({ closes: run.closes, purchases: run.purchases }, (_, value) =>
    typeof value === 'bigint' ? value.toString() : value,
  );
  return `storm bench: ${run.machine}; ledger every ${run.ledgerMs} ms, ${LIMIT} Soroban transactions per ledger, storm ${STORM.transactionsPerLedger} per ledger at ${STORM.inclusionFee} stroops\n\n${closes.join('\n')}\n\n${purchases.join('\n')}\n\n${json}\n`;
}
