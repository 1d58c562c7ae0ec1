import { TxbWarningCode } from '@rp/contracts';
import type { PositionSummary } from '@rp/ledger';
import { type WarningFacts, warningsFor } from './warnings';

const summary = (healthFactor: bigint | null, riskLevel: PositionSummary['riskLevel'] = 'low'): PositionSummary => ({
  reserves: [],
  collateralValue: 0n,
  liabilityValue: 0n,
  effectiveCollateralValue: 0n,
  effectiveLiabilityValue: 0n,
  healthFactor,
  riskLevel,
  valueDecimals: 7,
});

const NOW = 1_800_000_000;
const quiet: WarningFacts = {
  poolStatus: 1,
  now: NOW,
  priceTimes: new Map([['CUSDC', BigInt(NOW - 60)]]),
  before: summary(20_000_000n),
  after: summary(null),
};
const codes = (facts: Partial<WarningFacts>) => warningsFor({ ...quiet, ...facts }).map((warning) => warning.code);

describe('build warnings', () => {
  it('says nothing about a healthy repay in an active pool with fresh prices and enough balance', () => {
    expect(codes({ maxCost: { token: 'CUSDC', amount: 100n, balance: 100n, decimals: 7 } })).toEqual([]);
  });

  it('warns of a balance below the max cost', () => {
    const [warning] = warningsFor({
      ...quiet,
      maxCost: { token: 'CUSDC', amount: 1_005_0000000n, balance: 1_000_0000000n, decimals: 7 },
    });
    expect(warning).toEqual({
      code: TxbWarningCode.INSUFFICIENT_BALANCE,
      message: 'The wallet holds 1000.0000000 of CUSDC, less than the max cost 1005.0000000',
    });
  });

  it.each([
    [2, TxbWarningCode.POOL_ON_ICE],
    [3, TxbWarningCode.POOL_ON_ICE],
    [4, TxbWarningCode.POOL_FROZEN],
    [5, TxbWarningCode.POOL_FROZEN],
  ])('warns of pool status %s', (poolStatus, code) => {
    expect(codes({ poolStatus })).toEqual([code]);
  });

  it('warns of a price older than five minutes, not of one just under', () => {
    expect(codes({ priceTimes: new Map([['CXLM', BigInt(NOW - 301)]]) })).toEqual([TxbWarningCode.STALE_PRICE]);
    expect(codes({ priceTimes: new Map([['CXLM', BigInt(NOW - 300)]]) })).toEqual([]);
  });

  it('warns of a capped amount and of the health factor after, when it falls or is not low risk', () => {
    expect(codes({ capped: { token: 'CUSDC', asked: 10n, used: 5n } })).toEqual([TxbWarningCode.AMOUNT_CAPPED]);
    expect(codes({ after: summary(18_000_000n) })).toEqual([TxbWarningCode.HEALTH_FACTOR_AFTER]);
    expect(codes({ before: summary(11_000_000n, 'high'), after: summary(12_000_000n, 'high') })).toEqual([
      TxbWarningCode.HEALTH_FACTOR_AFTER,
    ]);
    expect(codes({ before: summary(11_000_000n, 'high'), after: summary(16_000_000n) })).toEqual([]);
  });

  it('puts an approval first, naming what it allows and until when', () => {
    const [warning] = warningsFor({ ...quiet, approval: { token: 'CUSDC', amount: 1_930n, expirationLedger: 300 } });
    expect(warning.code).toBe(TxbWarningCode.APPROVAL_REQUIRED);
    expect(warning.message).toContain('1930 base units of CUSDC');
    expect(warning.message).toContain('ledger 300');
  });

  it('warns of a congested network with the fee bid, and says nothing when fees are at the minimum', () => {
    expect(codes({ fee: { fee: 100n, congested: false } })).toEqual([]);
    const [warning] = warningsFor({ ...quiet, fee: { fee: 1000n, congested: true } });
    expect(warning).toEqual({
      code: TxbWarningCode.NETWORK_CONGESTED,
      message:
        'Recent inclusion fees are above the 100-stroop minimum (surge pricing): this transaction bids 1000 ' +
        'stroops; feeLevel "high" bids more',
    });
  });
});
