import {
  BLEND_POOL_ERROR,
  REQUEST_TYPES,
  SCALAR_7,
  type PoolConfig,
  type Positions,
  type ReserveConfig,
  type ReserveData,
  accrueReserve,
  blendScVal,
  decodePriceData,
  encodeOracleAsset,
  utilization,
} from '@rp/ledger';
import type { ContractEnv } from '../../ledger/host/native-contract';
import { PoolStorage } from './storage';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A reserve loaded (and accrued) for one invocation; `data` is mutated by the actions, then stored. */
export interface LiveReserve {
  readonly asset: string;
  readonly config: ReserveConfig;
  readonly data: Mutable<ReserveData>;
  readonly scalar: bigint;
}

/** Oracle prices older than a day are refused with InvalidPrice (pool.rs `load_price`). */
const MAX_PRICE_AGE_SECONDS = 24n * 60n * 60n;

/**
 * pool/src/pool/pool.rs `Pool`: the config plus per-invocation caches of accrued reserves and oracle prices, so a
 * submit accrues each reserve once and asks the oracle once per asset.
 */
export class PoolState {
  readonly storage: PoolStorage;
  readonly config: PoolConfig;
  private readonly reserves = new Map<string, LiveReserve>();
  private readonly toStore: string[] = [];
  private readonly prices = new Map<string, bigint>();
  private priceDecimals: number | undefined;

  constructor(private readonly env: ContractEnv) {
    this.storage = new PoolStorage(env);
    this.config = this.storage.config();
  }

  /** `Reserve::load` with the cache; `store` marks it to be written back at the end. */
  loadReserve(asset: string, store: boolean): LiveReserve {
    if (store && !this.toStore.includes(asset)) this.toStore.push(asset);
    const cached = this.reserves.get(asset);
    if (cached) return cached;
    const config = this.storage.reserveConfig(asset);
    const stored = this.storage.reserveData(asset);
    const data = accrueReserve(config, stored, this.config.bstopRate, this.env.ledger.timestamp);
    const reserve: LiveReserve = { asset, config, data: { ...data }, scalar: 10n ** BigInt(config.decimals) };
    this.reserves.set(asset, reserve);
    return reserve;
  }

  storeCachedReserves(): void {
    for (const asset of this.toStore) {
      const reserve = this.reserves.get(asset);
      if (!reserve) this.env.fail(BLEND_POOL_ERROR.InternalReserveNotFound);
      this.storage.setReserveData(asset, reserve.data);
    }
  }

  /** Pool status gate: borrowing needs status <= 1, supplying <= 3; repay and withdrawals always pass. */
  requireActionAllowed(requestType: number): void {
    const { status } = this.config;
    const borrowLike = requestType === REQUEST_TYPES.Borrow || requestType === REQUEST_TYPES.DeleteLiquidationAuction;
    const supplyLike = requestType === REQUEST_TYPES.SupplyCollateral || requestType === REQUEST_TYPES.Supply;
    if ((status > 1 && borrowLike) || (status > 3 && supplyLike)) this.env.fail(BLEND_POOL_ERROR.InvalidPoolStatus);
  }

  requireUnderMax(positions: Positions, previousCount: number): void {
    const count = effectiveCount(positions);
    if (count > previousCount && this.config.maxPositions < count) this.env.fail(BLEND_POOL_ERROR.MaxPositionsExceeded);
  }

  loadPriceDecimals(): number {
    if (this.priceDecimals === undefined) {
      this.priceDecimals = blendScVal.readU32(this.env.call(this.config.oracle, 'decimals', []));
    }
    return this.priceDecimals;
  }

  /** SEP-40 `lastprice(Asset::Stellar(asset))`: a missing, stale or non-positive price fails the invocation. */
  loadPrice(asset: string): bigint {
    const cached = this.prices.get(asset);
    if (cached !== undefined) return cached;
    const result = this.env.call(this.config.oracle, 'lastprice', [encodeOracleAsset({ stellar: asset })]);
    // Rust `unwrap_optimized` on None aborts the call; a contract error is the nearest equivalent here.
    if (blendScVal.isVoid(result)) this.env.fail(BLEND_POOL_ERROR.InvalidPrice, `no price for ${asset}`);
    const { price, timestamp } = decodePriceData(result);
    if (timestamp + MAX_PRICE_AGE_SECONDS < this.env.ledger.timestamp || price <= 0n) {
      this.env.fail(BLEND_POOL_ERROR.InvalidPrice, `stale or invalid price for ${asset}`);
    }
    this.prices.set(asset, price);
    return price;
  }
}

export const effectiveCount = (p: Positions): number => p.liabilities.size + p.collateral.size;

/** reserve.rs checks. */
export function requireUtilizationBelowMax(env: ContractEnv, reserve: LiveReserve): void {
  if (utilization(reserve) > BigInt(reserve.config.maxUtil)) env.fail(BLEND_POOL_ERROR.InvalidUtilRate);
}

export function requireUtilizationBelow100(env: ContractEnv, reserve: LiveReserve): void {
  if (utilization(reserve) >= SCALAR_7) env.fail(BLEND_POOL_ERROR.InvalidUtilRate);
}

export function requireReserveActionAllowed(env: ContractEnv, reserve: LiveReserve, requestType: number): void {
  const opens =
    requestType === REQUEST_TYPES.Supply ||
    requestType === REQUEST_TYPES.SupplyCollateral ||
    requestType === REQUEST_TYPES.Borrow;
  if (!reserve.config.enabled && opens) env.fail(BLEND_POOL_ERROR.ReserveDisabled);
}
