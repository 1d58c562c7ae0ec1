import type { AlertTrigger, RiskLevel } from '@rp/contracts';

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
