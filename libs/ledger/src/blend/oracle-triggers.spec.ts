import { StrKey } from '@stellar/stellar-sdk';
import type { Positions, PriceData, Reserve } from './layouts';
import { heldAssets, staleOracleTriggers } from './oracle-triggers';
import { assessPosition } from './position-risk';
import { FRESH_RESERVE_DATA, SAMPLE_RESERVE_CONFIG } from './test-fixtures';

const XLM = StrKey.encodeContract(Buffer.alloc(32, 1));
const USDC = StrKey.encodeContract(Buffer.alloc(32, 2));
const EURC = StrKey.encodeContract(Buffer.alloc(32, 3));
const UNIT = 10_000_000n;
const CLOSE = 1_800_000_000n;

const reserve = (asset: string, index: number): Reserve => ({
  asset,
  config: { ...SAMPLE_RESERVE_CONFIG, index, cFactor: 7_500_000, lFactor: 9_500_000 },
  data: FRESH_RESERVE_DATA,
  scalar: UNIT,
});
const reserves = [reserve(XLM, 0), reserve(USDC, 1), reserve(EURC, 2)];

/** Prices stamped `age` seconds before the close, per asset (a fresh stamp otherwise). */
const prices = (ages: Partial<Record<string, bigint>> = {}) => ({
  decimals: 7,
  prices: new Map<string, PriceData>(
    [
      [XLM, 5_000_000n],
      [USDC, UNIT],
      [EURC, 11_000_000n],
    ].map(([asset, price]) => [
      asset as string,
      { price: price as bigint, timestamp: CLOSE - (ages[asset as string] ?? 0n) },
    ]),
  ),
});

// 10 000 XLM collateral, 1 900 USDC debt, 500 EURC plain supply (not at risk).
const held: Positions = {
  collateral: new Map([[0, 10_000n * UNIT]]),
  liabilities: new Map([[1, 1_900n * UNIT]]),
  supply: new Map([[2, 500n * UNIT]]),
};
const stale = [{ trigger: 'stale_oracle', minimumLevel: 'high' }];

describe('staleOracleTriggers', () => {
  it('raises stale_oracle (high) when a collateral price is older than the default 300 s at the close', () => {
    expect(staleOracleTriggers(reserves, prices({ [XLM]: 301n }), held, CLOSE)).toEqual(stale);
  });

  it('raises it for the price of a debt too', () => {
    expect(staleOracleTriggers(reserves, prices({ [USDC]: 3_600n }), held, CLOSE)).toEqual(stale);
  });

  it('leaves a price exactly at the bound alone, and one a second past it stale', () => {
    expect(staleOracleTriggers(reserves, prices({ [XLM]: 300n }), held, CLOSE)).toEqual([]);
    expect(staleOracleTriggers(reserves, prices({ [XLM]: 301n }), held, CLOSE)).toEqual(stale);
  });

  it("judges by the wallet's oracleMaxAgeSeconds", () => {
    const bounds = { medium: 15_000_000n, high: 12_500_000n, critical: 11_000_000n, oracleMaxAgeSeconds: 60 };
    expect(staleOracleTriggers(reserves, prices({ [XLM]: 60n }), held, CLOSE, bounds)).toEqual([]);
    expect(staleOracleTriggers(reserves, prices({ [XLM]: 61n }), held, CLOSE, bounds)).toEqual(stale);
  });

  it('ignores an asset the position does not hold, or only supplies', () => {
    const noEurc = { ...held, supply: new Map() };
    expect(staleOracleTriggers(reserves, prices({ [EURC]: 86_400n }), noEurc, CLOSE)).toEqual([]);
    expect(staleOracleTriggers(reserves, prices({ [EURC]: 86_400n }), held, CLOSE)).toEqual([]);
  });

  it('judges nothing without the close time, and a price stamped after the close is fresh', () => {
    expect(staleOracleTriggers(reserves, prices({ [XLM]: 10_000n }), held, undefined)).toEqual([]);
    expect(staleOracleTriggers(reserves, prices({ [XLM]: -5n }), held, CLOSE)).toEqual([]);
  });

  it('names held assets once, collateral and debt, never plain supply', () => {
    const both: Positions = {
      ...held,
      collateral: new Map([
        [0, 1n],
        [1, 1n],
      ]),
    };
    expect(heldAssets(reserves, both)).toEqual([XLM, USDC]);
  });
});

describe('assessPosition with the ledger close time', () => {
  it('raises a healthy position with a stale collateral price to high (REPAY)', () => {
    const risk = assessPosition(reserves, prices({ [XLM]: 600n }), held, undefined, {
      status: 0,
      ledgerCloseTime: CLOSE,
    });
    expect(risk).toMatchObject({ riskLevel: 'high', recommendedAction: 'REPAY', triggers: ['stale_oracle'] });
  });

  it('names the trigger for a position without debt, which stays low', () => {
    const collateralOnly: Positions = { ...held, liabilities: new Map() };
    const risk = assessPosition(reserves, prices({ [XLM]: 600n }), collateralOnly, undefined, {
      status: 0,
      ledgerCloseTime: CLOSE,
    });
    expect(risk).toMatchObject({ riskLevel: 'low', recommendedAction: 'HOLD', triggers: ['stale_oracle'] });
  });
});
