import type { SandboxLedger } from '../sandbox-ledger';
import { feeDistribution, type FeeDistribution } from './fee-distribution';

/** stellar-rpc's default fee-stats windows (`soroban-fee-stats-retention-window`, `classic-...`), in ledgers. */
export const SOROBAN_FEE_WINDOW = 50;
export const CLASSIC_FEE_WINDOW = 10;

export interface FeeStats {
  readonly sorobanInclusionFee: FeeDistribution;
  readonly inclusionFee: FeeDistribution;
  readonly latestLedger: number;
}

/**
 * `getFeeStats` as stellar-rpc computes it: the inclusion fees charged (fee charged less the resource fee) of the
 * Soroban transactions in the last 50 ledgers, and the per-operation fees of classic transactions in the last 10.
 * The sandbox applies only Soroban transactions, so `inclusionFee` is the empty distribution the RPC answers then.
 */
export function feeStatsOf(ledger: SandboxLedger): FeeStats {
  const ledgers = ledger.recentLedgers(SOROBAN_FEE_WINDOW);
  const fees = ledgers.flatMap((closed) =>
    closed.transactions.flatMap((hash) => {
      const record = ledger.transaction(hash);
      return record ? [record.inclusionFeeCharged] : [];
    }),
  );
  return {
    sorobanInclusionFee: feeDistribution(fees, ledgers.length),
    inclusionFee: feeDistribution([], Math.min(CLASSIC_FEE_WINDOW, ledgers.length)),
    latestLedger: ledger.latest.sequence,
  };
}
