import type { Positions, Reserve } from './layouts';
import { currentInterestRate, utilization } from './math';
import type { RaisedTrigger } from './pool-triggers';

/**
 * The borrow rate a reserve charges now (APR, 7 decimals): Blend v2's `calc_accrual` `cur_ir`, the three-segment
 * curve at the reserve's utilization times its rate modifier (`ir_mod`), from the reserve as accrued.
 */
export function borrowRate(reserve: Reserve): bigint {
  return currentInterestRate(reserve.config, utilization(reserve), reserve.data.irMod);
}

/** Every reserve's borrow rate, by asset (what the monitor keeps from one round to the next). */
export function borrowRates(reserves: readonly Reserve[]): Map<string, bigint> {
  return new Map(reserves.map((reserve) => [reserve.asset, borrowRate(reserve)]));
}

/**
 * `borrow_rate_jump` (medium) when a reserve the position borrows charges half again or more of what it charged
 * at the last round (new >= 1.5 x old, and up): the debt grows faster than it did. A reserve without a rate at the
 * last round (none known yet, or a new reserve) raises nothing.
 */
export function borrowRateJumpTriggers(
  reserves: readonly Reserve[],
  positions: Positions,
  previous: ReadonlyMap<string, bigint> | undefined,
): RaisedTrigger[] {
  if (!previous || previous.size === 0) return [];
  const jumped = [...positions.liabilities].some(([index, dTokens]) => {
    const reserve = reserves[index];
    const before = reserve && dTokens > 0n ? previous.get(reserve.asset) : undefined;
    if (before === undefined) return false;
    const now = borrowRate(reserve);
    return now > before && now * 2n >= before * 3n;
  });
  return jumped ? [{ trigger: 'borrow_rate_jump', minimumLevel: 'medium' }] : [];
}
