import type { FeeLevel } from '@rp/contracts';
import { MIN_INCLUSION_FEE, networkInclusionFee } from './close-fee';

/**
 * The percentile of recent Soroban inclusion fees a `normal` bid offers. The fees `getFeeStats` reports are the ones
 * charged; under surge pricing the high percentiles of a congested window are the clearing price of its full
 * ledgers, so p90 offers that price (a tie, which waits behind earlier bids) without the margin `high` adds.
 */
export const NORMAL_FEE_PERCENTILE = 'p90' as const;

/** The part of a `getFeeStats` distribution the levels read. */
export interface LeveledFeeDistribution {
  readonly p90: string;
  readonly p95: string;
  readonly transactionCount: string;
}

/** What a fee choice answers: the inclusion fee to bid and whether the network is congested. */
export interface InclusionFeeChoice {
  /** Inclusion fee per operation, in stroops: never below the minimum, never above the cap. */
  readonly fee: bigint;
  /** Recent inclusion fees (the `normal` percentile) are above the minimum. */
  readonly congested: boolean;
}

const stroops = (value: string | undefined): bigint | undefined =>
  value !== undefined && /^\d{1,19}$/.test(value) ? BigInt(value) : undefined;

/** The `normal` ask: p90 of recent Soroban inclusion fees, never below the minimum (empty or malformed: minimum). */
function normalInclusionFee(distribution: LeveledFeeDistribution | undefined): bigint {
  const count = stroops(distribution?.transactionCount);
  const percentile = stroops(distribution?.[NORMAL_FEE_PERCENTILE]);
  if (!count || percentile === undefined) return MIN_INCLUSION_FEE;
  return percentile > MIN_INCLUSION_FEE ? percentile : MIN_INCLUSION_FEE;
}

/**
 * The inclusion fee for `level` from a `getFeeStats` distribution: `normal` p90, `high` the agent's close bid
 * (p95 + 25%, `networkInclusionFee`); both never below the 100-stroop minimum and at most `maxInclusionFee` (which
 * is itself never taken below the minimum). Congested: the `normal` ask is above the minimum.
 */
export function chooseInclusionFee(
  distribution: LeveledFeeDistribution | undefined,
  level: FeeLevel,
  maxInclusionFee: bigint,
): InclusionFeeChoice {
  const normal = normalInclusionFee(distribution);
  const ask = level === 'high' ? networkInclusionFee(distribution) : normal;
  const capped = ask < maxInclusionFee ? ask : maxInclusionFee;
  return { fee: capped > MIN_INCLUSION_FEE ? capped : MIN_INCLUSION_FEE, congested: normal > MIN_INCLUSION_FEE };
}
