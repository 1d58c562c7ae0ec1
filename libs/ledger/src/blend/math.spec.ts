import { SAMPLE_RESERVE_CONFIG as CONFIG, FRESH_RESERVE_DATA as FRESH } from './test-fixtures';
import {
  accrueReserve,
  calcAccrual,
  currentInterestRate,
  divCeil,
  divFloor,
  fixedDivCeil,
  fixedDivFloor,
  fixedMulCeil,
  fixedMulFloor,
  toAssetFromBToken,
  toAssetFromDToken,
  toBTokenDown,
  toBTokenUp,
  toDTokenDown,
  toDTokenUp,
  toEffectiveAssetFromBToken,
  toEffectiveAssetFromDToken,
  utilization,
} from './math';

describe('fixed-point helpers', () => {
  it.each([
    [7n, 2n, 3n, 4n],
    [-7n, 2n, -4n, -3n],
    [6n, 2n, 3n, 3n],
    [-6n, 2n, -3n, -3n],
    [0n, 5n, 0n, 0n],
    [7n, -2n, -4n, -3n],
  ])('%s / %s floors to %s and ceils to %s', (r, z, floor, ceil) => {
    expect(divFloor(r, z)).toBe(floor);
    expect(divCeil(r, z)).toBe(ceil);
  });

  it('multiplies and divides with a denominator', () => {
    expect(fixedMulFloor(1_5000000n, 3n, 1_0000000n)).toBe(4n);
    expect(fixedMulCeil(1_5000000n, 3n, 1_0000000n)).toBe(5n);
    expect(fixedDivFloor(10n, 3n, 1_0000000n)).toBe(33333333n);
    expect(fixedDivCeil(10n, 3n, 1_0000000n)).toBe(33333334n);
  });
});

describe('token conversions', () => {
  const reserve = { config: CONFIG, data: { ...FRESH, bRate: 999_999_999_999n, dRate: 1_000_000_000_001n } };

  it('rounds bTokens down and dTokens up', () => {
    expect(toAssetFromBToken(reserve, 3n)).toBe(2n); // 2.999999999997
    expect(toAssetFromDToken(reserve, 3n)).toBe(4n); // 3.000000000003
    expect(toBTokenDown(reserve, 3n)).toBe(3n); // 3.000000000003
    expect(toBTokenUp(reserve, 3n)).toBe(4n);
    expect(toDTokenDown(reserve, 3n)).toBe(2n); // 2.999999999997
    expect(toDTokenUp(reserve, 3n)).toBe(3n);
  });

  it('applies the collateral factor (floor) and the liability factor (ceil)', () => {
    const unit = { config: CONFIG, data: FRESH };
    expect(toEffectiveAssetFromBToken(unit, 1000_0000000n)).toBe(900_0000000n);
    expect(toEffectiveAssetFromDToken(unit, 1000_0000000n)).toBe(1250_0000000n);
    expect(toEffectiveAssetFromBToken(unit, 11n)).toBe(9n); // 9.9
    expect(toEffectiveAssetFromDToken(unit, 11n)).toBe(14n); // 13.75
  });

  it('computes utilization rounded up and capped at 100%', () => {
    const at = (b: bigint, d: bigint) => utilization({ config: CONFIG, data: { ...FRESH, bSupply: b, dSupply: d } });
    expect(at(1000n, 0n)).toBe(0n);
    expect(at(1000n, 400n)).toBe(4_000_000n);
    expect(at(3n, 1n)).toBe(3_333_334n);
    expect(at(100n, 120n)).toBe(10_000_000n);
  });
});

describe('interest (interest.rs calc_accrual)', () => {
  it('uses the three rate segments', () => {
    // util 0.4 <= target 0.5: ceil(0.4/0.5) = 0.8; 0.8 x r_one 0.05 + r_base 0.01 = 0.05
    expect(currentInterestRate(CONFIG, 4_000_000n, 10_000_000n)).toBe(500_000n);
    // util 0.75: (0.25/0.45 = 0.5555556 ceil) x 0.5 = 0.2777778 + 0.06 = 0.3377778
    expect(currentInterestRate(CONFIG, 7_500_000n, 10_000_000n)).toBe(3_377_778n);
    // util 0.975: (0.025/0.05 = 0.5) x r_three 1.5 = 0.75 + ir_mod x (0.5 + 0.05 + 0.01) = 1.31
    expect(currentInterestRate(CONFIG, 9_750_000n, 10_000_000n)).toBe(13_100_000n);
  });

  it('accrues over an hour and lowers ir_mod below target utilization', () => {
    // time_weight = 3600e12 / 31536000 = 114155251; 114155251 x 0.05 = 5707762.55 -> ceil
    // ir_mod: 3600 x -0.1 x 0.000002 = -0.00072 -> 0.99928
    expect(calcAccrual(CONFIG, 4_000_000n, 10_000_000n, 3600n)).toEqual({
      loanAccrual: 1_000_005_707_763n,
      irMod: 9_992_800n,
    });
  });

  it('rounds a falling ir_mod with ceil on the negative product (Rust), not as the blend-sdk does', () => {
    // 3600 x -0.0999999 x 0.000002 = -0.00071999928 -> ceil = -7199 (the sdk would floor to -7200)
    expect(calcAccrual(CONFIG, 4_000_001n, 10_000_000n, 3600n)).toEqual({
      loanAccrual: 1_000_005_707_774n,
      irMod: 9_992_801n,
    });
  });

  it('raises ir_mod above target and caps it at 10', () => {
    expect(calcAccrual(CONFIG, 9_750_000n, 10_000_000n, 3600n).irMod).toBe(10_034_200n);
    expect(calcAccrual(CONFIG, 9_750_000n, 99_999_000n, 3600n).irMod).toBe(100_000_000n);
    expect(calcAccrual(CONFIG, 0n, 1_000_100n, 3600n).irMod).toBe(1_000_000n);
  });

  it('rejects a zero time step as the contract does (InternalError)', () => {
    expect(() => calcAccrual(CONFIG, 4_000_000n, 10_000_000n, 0n)).toThrow(RangeError);
  });
});

describe('accrueReserve (Reserve::load)', () => {
  const data = { ...FRESH, bSupply: 1000_0000000n, dSupply: 400_0000000n, lastTime: 1000n };

  it('grows dRate, credits the backstop and passes the rest to suppliers', () => {
    // liabilities 400 -> ceil(400e7 x 1.000005707763) = 4000022832: accrued 22832; backstop 20% = 4566 (floor)
    // bRate = floor((1e10 + 22832 - 4566) / 1e10, 12 decimals) = 1.0000018266
    expect(accrueReserve(CONFIG, data, 2_000_000, 4600n)).toEqual({
      ...data,
      dRate: 1_000_005_707_763n,
      bRate: 1_000_001_826_600n,
      irMod: 9_992_800n,
      backstopCredit: 4566n,
      lastTime: 4600n,
    });
  });

  it('only moves last_time when nothing is borrowed or supplied, and nothing at the same second', () => {
    expect(accrueReserve(CONFIG, { ...data, dSupply: 0n }, 2_000_000, 4600n)).toEqual({
      ...data,
      dSupply: 0n,
      lastTime: 4600n,
    });
    expect(accrueReserve(CONFIG, { ...data, bSupply: 0n }, 2_000_000, 4600n)).toEqual({
      ...data,
      bSupply: 0n,
      lastTime: 4600n,
    });
    expect(accrueReserve(CONFIG, data, 2_000_000, 1000n)).toBe(data);
  });

  it('gives suppliers all interest without a backstop rate', () => {
    const out = accrueReserve(CONFIG, data, 0, 4600n);
    expect(out.backstopCredit).toBe(0n);
    expect(out.bRate).toBe(1_000_002_283_200n); // (1e10 + 22832) / 1e10
  });
});
