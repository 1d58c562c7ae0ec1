import { xdr } from '@stellar/stellar-sdk';
import {
  BLEND_POOL_ERROR,
  POOL_INSTANCE_KEYS,
  SCALAR_12,
  SCALAR_7,
  type PoolConfig,
  type ReserveConfig,
  type ReserveData,
  blendScVal,
} from '@rp/ledger';
import type { ContractEnv } from '../../ledger/host/native-contract';
import { PoolState } from './pool-state';
import { PoolStorage } from './storage';

/** config.rs `require_valid_pool_config`. */
export function requireValidPoolConfig(env: ContractEnv, config: PoolConfig): void {
  if (
    config.bstopRate >= Number(SCALAR_7) ||
    config.maxPositions < 2 ||
    config.maxPositions > 60 ||
    config.minCollateral < 0n
  ) {
    env.fail(BLEND_POOL_ERROR.InvalidPoolConfigArgs);
  }
}

/** `__constructor`: the pool starts in status 6 (setup), as `execute_initialize` leaves it. */
export function initializePool(
  env: ContractEnv,
  init: {
    admin: string;
    name: string;
    oracle: string;
    bstopRate: number;
    maxPositions: number;
    minCollateral: bigint;
    backstop: string;
    blnd: string;
  },
): void {
  env.requireAuth(init.admin);
  const config: PoolConfig = {
    oracle: init.oracle,
    minCollateral: init.minCollateral,
    bstopRate: init.bstopRate,
    status: 6,
    maxPositions: init.maxPositions,
  };
  requireValidPoolConfig(env, config);
  const storage = new PoolStorage(env);
  storage.setInstance(POOL_INSTANCE_KEYS.admin, blendScVal.scAddress(init.admin));
  storage.setInstance(POOL_INSTANCE_KEYS.name, blendScVal.scString(init.name));
  storage.setInstance(POOL_INSTANCE_KEYS.backstop, blendScVal.scAddress(init.backstop));
  storage.setConfig(config);
  storage.setInstance(POOL_INSTANCE_KEYS.blndToken, blendScVal.scAddress(init.blnd));
}

/** config.rs `require_valid_reserve_metadata`. */
function requireValidReserveConfig(env: ContractEnv, c: ReserveConfig): void {
  const one = Number(SCALAR_7);
  if (
    c.decimals > 18 ||
    c.cFactor > one ||
    c.lFactor > one ||
    c.util > 9_000_000 ||
    c.maxUtil > one ||
    c.maxUtil <= c.util ||
    c.rBase >= one ||
    c.rBase < 1_000 ||
    c.rOne > c.rTwo ||
    c.rTwo > c.rThree ||
    c.reactivity > 1_000
  ) {
    env.fail(BLEND_POOL_ERROR.InvalidReserveMetadata);
  }
}

/**
 * `initialize_reserve`, applied at once. DEVIATION: real v2 queues a reserve change (`queue_set_reserve`) and
 * applies it with `set_reserve(asset)` a week later (immediately only in setup status); the sandbox has no reason
 * to wait, so `set_reserve(asset, config)` does both. The stored index is the reserve's list position, whatever
 * `config.index` says, as in the contract.
 */
export function setReserve(env: ContractEnv, asset: string, metadata: ReserveConfig): number {
  requireValidReserveConfig(env, metadata);
  const storage = new PoolStorage(env);
  let index: number;
  if (storage.hasReserve(asset)) {
    const current = storage.reserveConfig(asset);
    if (current.decimals !== metadata.decimals || (current.lFactor !== 0 && metadata.lFactor === 0)) {
      env.fail(BLEND_POOL_ERROR.InvalidReserveMetadata);
    }
    const reserve = new PoolState(env).loadReserve(asset, false);
    const curveChanged = (['rBase', 'rOne', 'rTwo', 'rThree', 'util'] as const).some((k) => current[k] !== metadata[k]);
    if (curveChanged) reserve.data.irMod = SCALAR_7;
    storage.setReserveData(asset, reserve.data);
    index = current.index;
  } else {
    index = storage.pushReserve(asset);
    const fresh: ReserveData = {
      bRate: SCALAR_12,
      dRate: SCALAR_12,
      irMod: SCALAR_7,
      dSupply: 0n,
      bSupply: 0n,
      lastTime: env.ledger.timestamp,
      backstopCredit: 0n,
    };
    storage.setReserveData(asset, fresh);
  }
  storage.setReserveConfig(asset, { ...metadata, index });
  env.emit(
    [blendScVal.scSymbol('set_reserve')],
    xdr.ScVal.scvVec([blendScVal.scAddress(asset), blendScVal.scU32(index)]),
  );
  return index;
}

/**
 * DEVIATION: real `set_status` consults the backstop's deposits and only accepts 0, 2, 3 and 4; the sandbox has
 * no backstop, so the admin may set any status 0-6 (1 and 5 are what `update_status` would derive).
 */
export function setStatus(env: ContractEnv, status: number): void {
  const storage = new PoolStorage(env);
  const admin = storage.admin();
  env.requireAuth(admin);
  if (!Number.isInteger(status) || status < 0 || status > 6) env.fail(BLEND_POOL_ERROR.BadRequest);
  storage.setConfig({ ...storage.config(), status });
  env.emit([blendScVal.scSymbol('set_status'), blendScVal.scAddress(admin)], blendScVal.scU32(status));
}

/** `update_pool`: accrues every reserve at the old backstop rate before a rate change, as the contract does. */
export function updatePool(env: ContractEnv, bstopRate: number, maxPositions: number, minCollateral: bigint): void {
  const storage = new PoolStorage(env);
  const config = storage.config();
  if (config.bstopRate !== bstopRate) {
    const pool = new PoolState(env);
    for (const asset of storage.reserveList()) pool.loadReserve(asset, true);
    pool.storeCachedReserves();
  }
  const next = { ...config, bstopRate, maxPositions, minCollateral };
  requireValidPoolConfig(env, next);
  storage.setConfig(next);
}
