import { type AlertTrigger, DEFAULT_RISK_BOUNDS, type RiskLevel, type RiskLevelBounds } from '@rp/contracts';
import type { Positions, Reserve } from './layouts';

/** A trigger a position raises whatever its health factor, with the lowest level it raises the position to. */
export interface RaisedTrigger {
  readonly trigger: AlertTrigger;
  readonly minimumLevel: RiskLevel;
}

/** What the pool itself says about a position in it: its Blend v2 status (`PoolConfig.status`). */
export interface PoolConditions {
  readonly status: number;
}

/**
 * The triggers of the pool's status (Blend v2 pool/src/pool/status.rs): 0-1 active (none), 2-3 on ice (borrowing
 * stopped: `pool_on_ice`, medium), 4-5 frozen and 6 setup (supplying and borrowing stopped: `pool_frozen`, high).
 */
export function poolStatusTriggers(status: number): RaisedTrigger[] {
  if (status === 2 || status === 3) return [{ trigger: 'pool_on_ice', minimumLevel: 'medium' }];
  if (status >= 4) return [{ trigger: 'pool_frozen', minimumLevel: 'high' }];
  return [];
}

/** Every trigger the pool's conditions raise for a position in it. */
export function poolTriggers(conditions: PoolConditions | undefined): RaisedTrigger[] {
  return conditions ? poolStatusTriggers(conditions.status) : [];
}

/**
 * A reserve's utilization in basis points, floored: d_supply x d_rate / (b_supply x b_rate) (Blend v2
 * `Reserve::utilization`, rates of the accrued reserve); `null` without supply.
 */
export function utilizationBps(reserve: Reserve): number | null {
  const supplied = reserve.data.bSupply * reserve.data.bRate;
  if (supplied <= 0n) return null;
  return Number((reserve.data.dSupply * reserve.data.dRate * 10_000n) / supplied);
}

/**
 * `high_utilization` when a reserve the position borrows is at or above the wallet's bounds (`utilizationAlertBps`:
 * high, `utilizationWarnBps`: medium; the defaults 9000 / 8000 where the bounds have none): its lenders may not be
 * able to withdraw, and its rate climbs. One trigger, at the worst reserve's level.
 */
export function utilizationTriggers(
  reserves: readonly Reserve[],
  positions: Positions,
  bounds?: RiskLevelBounds,
): RaisedTrigger[] {
  const warn = bounds?.utilizationWarnBps ?? DEFAULT_RISK_BOUNDS.utilizationWarnBps ?? 8000;
  const alert = bounds?.utilizationAlertBps ?? DEFAULT_RISK_BOUNDS.utilizationAlertBps ?? 9000;
  let worst: RiskLevel | undefined;
  for (const [index, dTokens] of positions.liabilities) {
    const reserve = reserves[index];
    const bps = dTokens > 0n && reserve ? utilizationBps(reserve) : null;
    if (bps === null) continue;
    if (bps >= alert) worst = 'high';
    else if (bps >= warn && worst === undefined) worst = 'medium';
  }
  return worst ? [{ trigger: 'high_utilization', minimumLevel: worst }] : [];
}
