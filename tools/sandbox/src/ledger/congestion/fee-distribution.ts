/** One of `getFeeStats`'s distributions, with the JSON types stellar-rpc uses (strings, `ledgerCount` a number). */
export interface FeeDistribution {
  readonly max: string;
  readonly min: string;
  readonly mode: string;
  readonly p10: string;
  readonly p20: string;
  readonly p30: string;
  readonly p40: string;
  readonly p50: string;
  readonly p60: string;
  readonly p70: string;
  readonly p80: string;
  readonly p90: string;
  readonly p95: string;
  readonly p99: string;
  readonly transactionCount: string;
  readonly ledgerCount: number;
}

const PERCENTILES = [10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99] as const;

/**
 * The distribution of fees over a window of ledgers, computed as stellar-rpc's `computeFeeDistribution` does:
 * nearest-rank percentiles (the ceil(p*n/100)-th smallest), the mode as the longest run of equal values (the
 * smallest value when no value repeats), and an all-zero answer (ledgerCount 0 included) when there is no fee.
 */
export function feeDistribution(fees: readonly bigint[], ledgerCount: number): FeeDistribution {
  if (fees.length === 0) return zeroDistribution();
  const sorted = [...fees].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let mode = sorted[0];
  let longest = 0;
  let run = 0;
  for (let i = 1; i < sorted.length; i += 1) {
    if (sorted[i] === sorted[i - 1]) {
      run += 1;
      continue;
    }
    if (run > longest) {
      longest = run;
      mode = sorted[i - 1];
    }
    run = 0;
  }
  if (run > longest) mode = sorted[sorted.length - 1];
  const percentile = (p: number) => sorted[Math.ceil((p * sorted.length) / 100) - 1].toString();
  const ranks = Object.fromEntries(PERCENTILES.map((p) => [`p${p}`, percentile(p)]));
  return {
    max: sorted[sorted.length - 1].toString(),
    min: sorted[0].toString(),
    mode: mode.toString(),
    ...(ranks as Pick<FeeDistribution, `p${(typeof PERCENTILES)[number]}`>),
    transactionCount: String(sorted.length),
    ledgerCount,
  };
}

function zeroDistribution(): FeeDistribution {
  const ranks = Object.fromEntries(PERCENTILES.map((p) => [`p${p}`, '0']));
  return {
    max: '0',
    min: '0',
    mode: '0',
    ...(ranks as Pick<FeeDistribution, `p${(typeof PERCENTILES)[number]}`>),
    transactionCount: '0',
    ledgerCount: 0,
  };
}
