import type { Positions } from './layouts';
import {
  SCALAR_7,
  type ReserveState,
  fixedDivFloor,
  fixedMulCeil,
  fixedMulFloor,
  toAssetFromBToken,
  toAssetFromDToken,
  toEffectiveAssetFromBToken,
  toEffectiveAssetFromDToken,
} from './math';

/**
 * Health of a position as pool/src/pool/health_factor.rs computes it (`PositionData`): prices in the oracle's
 * decimals, collateral rounded down and liabilities rounded up at every step.
 */

/** `submit` fails with InvalidHf (1205) when the health factor is under 1.0000100 (7 decimals). */
export const MIN_HEALTH_FACTOR = 10_000_100n;

/** A reserve plus its asset and 10^decimals, in reserve-index order. */
export interface PositionReserve extends ReserveState {
  readonly asset: string;
  readonly scalar: bigint;
}

/** Position totals in oracle base units (the oracle's decimals). `*Base` are after collateral/liability factors. */
export interface PositionData {
  readonly collateralBase: bigint;
  readonly collateralRaw: bigint;
  readonly liabilityBase: bigint;
  readonly liabilityRaw: bigint;
  /** 10^oracle decimals. */
  readonly scalar: bigint;
}

/** Value of `amount` underlying at `price`: floor for collateral, ceil for liabilities, as the contract does. */
export const baseValueFloor = (price: bigint, amount: bigint, reserveScalar: bigint): bigint =>
  fixedMulFloor(price, amount, reserveScalar);
export const baseValueCeil = (price: bigint, amount: bigint, reserveScalar: bigint): bigint =>
  fixedMulCeil(price, amount, reserveScalar);

/**
 * `PositionData::calculate_from_positions`. `reserves[i]` is reserve index i; `priceOf` is asked only for reserves
 * the user holds collateral or debt in (the contract loads only those prices). Plain supply does not count.
 */
export function positionData(
  reserves: readonly PositionReserve[],
  positions: Positions,
  priceOf: (asset: string) => bigint,
  oracleDecimals: number,
): PositionData {
  let collateralBase = 0n;
  let collateralRaw = 0n;
  let liabilityBase = 0n;
  let liabilityRaw = 0n;
  reserves.forEach((reserve, index) => {
    const bTokens = positions.collateral.get(index) ?? 0n;
    const dTokens = positions.liabilities.get(index) ?? 0n;
    if (bTokens === 0n && dTokens === 0n) return;
    const price = priceOf(reserve.asset);
    if (bTokens > 0n) {
      collateralBase += baseValueFloor(price, toEffectiveAssetFromBToken(reserve, bTokens), reserve.scalar);
      collateralRaw += baseValueFloor(price, toAssetFromBToken(reserve, bTokens), reserve.scalar);
    }
    if (dTokens > 0n) {
      liabilityBase += baseValueCeil(price, toEffectiveAssetFromDToken(reserve, dTokens), reserve.scalar);
      liabilityRaw += baseValueCeil(price, toAssetFromDToken(reserve, dTokens), reserve.scalar);
    }
  });
  return { collateralBase, collateralRaw, liabilityBase, liabilityRaw, scalar: 10n ** BigInt(oracleDecimals) };
}

/**
 * Health factor with 7 decimals: effective collateral / effective liabilities, floored; `null` without debt.
 * With a 7-decimal oracle this is bit-for-bit the contract's `as_health_factor`; otherwise the same quotient at
 * 7 decimals instead of the oracle's.
 */
export function healthFactor(data: PositionData): bigint | null {
  if (data.liabilityBase === 0n) return null;
  return fixedDivFloor(data.collateralBase, data.liabilityBase, SCALAR_7);
}

/** `is_hf_under(min)`: the contract's comparison in oracle decimals; `min` has 7 decimals. */
export function isHealthFactorUnder(data: PositionData, min: bigint = MIN_HEALTH_FACTOR): boolean {
  if (data.liabilityBase === 0n) return false;
  const contractHf = fixedDivFloor(data.collateralBase, data.liabilityBase, data.scalar);
  return contractHf < fixedMulFloor(data.scalar, min, SCALAR_7);
}

/** `is_hf_over(max)`: true without debt; `max` has 7 decimals. */
export function isHealthFactorOver(data: PositionData, max: bigint): boolean {
  if (data.liabilityBase === 0n) return true;
  const contractHf = fixedDivFloor(data.collateralBase, data.liabilityBase, data.scalar);
  return contractHf > fixedMulCeil(data.scalar, max, SCALAR_7);
}
