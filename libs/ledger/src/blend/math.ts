import type { ReserveConfig, ReserveData } from './layouts';

/**
 * Blend v2 fixed-point arithmetic, ported from soroban-fixed-point-math (floor and ceil are true mathematical
 * rounding, also for negative products) and pool/src/pool/{reserve,interest}.rs. All amounts are bigints.
 */

export const SCALAR_7 = 10_000_000n;
export const SCALAR_12 = 1_000_000_000_000n;
export const SECONDS_PER_YEAR = 31_536_000n;
/** Utilization kink where the third rate segment starts (0.95, 7 decimals). */
const UTIL_95 = 9_500_000n;
const UTIL_5 = 500_000n;

/** floor(r / z) for any signs (bigint division truncates toward zero). */
export function divFloor(r: bigint, z: bigint): bigint {
  const q = r / z;
  return r % z !== 0n && r < 0n !== z < 0n ? q - 1n : q;
}

/** ceil(r / z) for any signs. */
export function divCeil(r: bigint, z: bigint): bigint {
  const q = r / z;
  return r % z !== 0n && r < 0n === z < 0n ? q + 1n : q;
}

export const fixedMulFloor = (x: bigint, y: bigint, denominator: bigint): bigint => divFloor(x * y, denominator);
export const fixedMulCeil = (x: bigint, y: bigint, denominator: bigint): bigint => divCeil(x * y, denominator);
export const fixedDivFloor = (x: bigint, y: bigint, denominator: bigint): bigint => divFloor(x * denominator, y);
export const fixedDivCeil = (x: bigint, y: bigint, denominator: bigint): bigint => divCeil(x * denominator, y);

/** What the reserve conversions need: the rates and, for effective values, the factors. */
export interface ReserveState {
  readonly config: ReserveConfig;
  readonly data: ReserveData;
}

// ---------- token conversions (reserve.rs) ----------

export const toAssetFromBToken = (r: ReserveState, bTokens: bigint): bigint =>
  fixedMulFloor(bTokens, r.data.bRate, SCALAR_12);
export const toAssetFromDToken = (r: ReserveState, dTokens: bigint): bigint =>
  fixedMulCeil(dTokens, r.data.dRate, SCALAR_12);
/** Collateral value after the collateral factor (floor: never overstate collateral). */
export const toEffectiveAssetFromBToken = (r: ReserveState, bTokens: bigint): bigint =>
  fixedMulFloor(toAssetFromBToken(r, bTokens), BigInt(r.config.cFactor), SCALAR_7);
/** Liability value after the liability factor (ceil: never understate debt). */
export const toEffectiveAssetFromDToken = (r: ReserveState, dTokens: bigint): bigint =>
  fixedDivCeil(toAssetFromDToken(r, dTokens), BigInt(r.config.lFactor), SCALAR_7);
export const toBTokenUp = (r: ReserveState, amount: bigint): bigint => fixedDivCeil(amount, r.data.bRate, SCALAR_12);
export const toBTokenDown = (r: ReserveState, amount: bigint): bigint => fixedDivFloor(amount, r.data.bRate, SCALAR_12);
export const toDTokenUp = (r: ReserveState, amount: bigint): bigint => fixedDivCeil(amount, r.data.dRate, SCALAR_12);
export const toDTokenDown = (r: ReserveState, amount: bigint): bigint => fixedDivFloor(amount, r.data.dRate, SCALAR_12);

export const totalSupply = (r: ReserveState): bigint => toAssetFromBToken(r, r.data.bSupply);
export const totalLiabilities = (r: ReserveState): bigint => toAssetFromDToken(r, r.data.dSupply);

/** Utilization, 7 decimals, capped at 1 (reserve.rs `utilization`). */
export function utilization(r: ReserveState): bigint {
  const liabilities = totalLiabilities(r);
  const supply = totalSupply(r);
  if (liabilities === 0n) return 0n;
  if (liabilities >= supply) return SCALAR_7;
  return fixedDivCeil(liabilities, supply, SCALAR_7);
}

// ---------- interest (interest.rs, reserve.rs `Reserve::load`) ----------

/** The current borrow rate (APR, 7 decimals) for a utilization and rate modifier. */
export function currentInterestRate(config: ReserveConfig, curUtil: bigint, irMod: bigint): bigint {
  const targetUtil = BigInt(config.util);
  const rBase = BigInt(config.rBase);
  const rOne = BigInt(config.rOne);
  const rTwo = BigInt(config.rTwo);
  if (curUtil <= targetUtil) {
    const utilScalar = fixedDivCeil(curUtil, targetUtil, SCALAR_7);
    const baseRate = fixedMulCeil(utilScalar, rOne, SCALAR_7) + rBase;
    return fixedMulCeil(baseRate, irMod, SCALAR_7);
  }
  if (curUtil <= UTIL_95) {
    const utilScalar = fixedDivCeil(curUtil - targetUtil, UTIL_95 - targetUtil, SCALAR_7);
    const baseRate = fixedMulCeil(utilScalar, rTwo, SCALAR_7) + rOne + rBase;
    return fixedMulCeil(baseRate, irMod, SCALAR_7);
  }
  const utilScalar = fixedDivCeil(curUtil - UTIL_95, UTIL_5, SCALAR_7);
  const extraRate = fixedMulCeil(utilScalar, BigInt(config.rThree), SCALAR_7);
  const intersection = fixedMulCeil(irMod, rTwo + rOne + rBase, SCALAR_7);
  return extraRate + intersection;
}

/**
 * `calc_accrual`: the dRate multiplier (12 decimals) over `deltaTime` seconds and the new rate modifier, which
 * moves toward the target utilization by `reactivity` and stays within [0.1, 10].
 */
export function calcAccrual(
  config: ReserveConfig,
  curUtil: bigint,
  irMod: bigint,
  deltaTime: bigint,
): { loanAccrual: bigint; irMod: bigint } {
  if (deltaTime < 1n) throw new RangeError('calcAccrual: deltaTime must be positive (InternalError in the pool)');
  const curIr = currentInterestRate(config, curUtil, irMod);
  const utilError = deltaTime * (curUtil - BigInt(config.util));
  const reactivity = BigInt(config.reactivity);
  let newIrMod: bigint;
  if (utilError >= 0n) {
    const next = irMod + fixedMulFloor(utilError, reactivity, SCALAR_7);
    newIrMod = next > 10n * SCALAR_7 ? 10n * SCALAR_7 : next;
  } else {
    const next = irMod + fixedMulCeil(utilError, reactivity, SCALAR_7);
    newIrMod = next < SCALAR_7 / 10n ? SCALAR_7 / 10n : next;
  }
  const timeWeight = (deltaTime * SCALAR_12) / SECONDS_PER_YEAR;
  return { loanAccrual: SCALAR_12 + fixedMulCeil(timeWeight, curIr, SCALAR_7), irMod: newIrMod };
}

/**
 * Reserve data accrued to `now` exactly as `Reserve::load` does: nothing when no time passed, only `lastTime`
 * when nothing is supplied or borrowed; otherwise dRate grows, the backstop takes `bstopRate` of the interest
 * and bRate absorbs the rest.
 */
export function accrueReserve(config: ReserveConfig, data: ReserveData, bstopRate: number, now: bigint): ReserveData {
  if (now === data.lastTime) return data;
  const reserve = { config, data };
  if (data.bSupply === 0n) return { ...data, lastTime: now };
  const curUtil = utilization(reserve);
  if (curUtil === 0n) return { ...data, lastTime: now };

  const { loanAccrual, irMod } = calcAccrual(config, curUtil, data.irMod, now - data.lastTime);
  const preSupply = totalSupply(reserve);
  const preLiabilities = totalLiabilities(reserve);
  const dRate = fixedMulCeil(loanAccrual, data.dRate, SCALAR_12);
  const accrued = totalLiabilities({ config, data: { ...data, dRate } }) - preLiabilities;

  let { bRate, backstopCredit } = data;
  if (accrued > 0n) {
    let credit = 0n;
    if (bstopRate > 0) {
      credit = fixedMulFloor(accrued, BigInt(bstopRate), SCALAR_7);
      backstopCredit += credit;
    }
    bRate = fixedDivFloor(preSupply + accrued - credit, data.bSupply, SCALAR_12);
  }
  return { ...data, dRate, bRate, irMod, backstopCredit, lastTime: now };
}
