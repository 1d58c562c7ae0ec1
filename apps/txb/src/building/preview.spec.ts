import type { PositionSummary } from '@rp/ledger';
import { formatUnits, previewOf } from './preview';

const summary = (fields: Partial<PositionSummary>): PositionSummary => ({
  reserves: [],
  collateralValue: 0n,
  liabilityValue: 0n,
  effectiveCollateralValue: 0n,
  effectiveLiabilityValue: 0n,
  healthFactor: null,
  riskLevel: 'low',
  valueDecimals: 7,
  ...fields,
});

describe('preview', () => {
  it.each([
    [12_345_678n, 7, '1.2345678'],
    [5n, 7, '0.0000005'],
    [30_000_000_000n, 7, '3000.0000000'],
    [42n, 0, '42'],
    [-15n, 1, '-1.5'],
  ])('formats %s with %s decimals as %s', (amount, decimals, text) => {
    expect(formatUnits(amount, decimals)).toBe(text);
  });

  it('gives health factors as numbers (null without debt) and values as USD strings', () => {
    const before = summary({ healthFactor: 11_249_999n, riskLevel: 'high' });
    const after = summary({
      collateralValue: 30_000_000_000n,
      liabilityValue: 10_000_000_000n,
      healthFactor: 21_428_571n,
    });
    expect(previewOf(before, after)).toEqual({
      healthFactorBefore: 1.1249999,
      healthFactorAfter: 2.1428571,
      riskLevelAfter: 'low',
      collateralValueUsdAfter: '3000.0000000',
      liabilityValueUsdAfter: '1000.0000000',
    });
    expect(previewOf(before, summary({})).healthFactorAfter).toBeNull();
  });
});
