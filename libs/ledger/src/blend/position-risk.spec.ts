import { StrKey } from '@stellar/stellar-sdk';
import { type Positions, type PriceData, type Reserve, emptyPositions } from './layouts';
import { assessPosition, fixedToNumber, holdsCollateralOrDebt } from './position-risk';
import { MissingPriceError } from './position-summary';
import { FRESH_RESERVE_DATA, SAMPLE_RESERVE_CONFIG } from './test-fixtures';

const XLM = StrKey.encodeContract(Buffer.alloc(32, 1));
const USDC = StrKey.encodeContract(Buffer.alloc(32, 2));
const UNIT = 10_000_000n;

// The sandbox's demo pool: XLM (index 0) c_factor 0.75, USDC (index 1) l_factor 0.95.
const reserves: Reserve[] = [
  {
    asset: XLM,
    config: { ...SAMPLE_RESERVE_CONFIG, index: 0, cFactor: 7_500_000, lFactor: 7_500_000 },
    data: FRESH_RESERVE_DATA,
    scalar: UNIT,
  },
  {
    asset: USDC,
    config: { ...SAMPLE_RESERVE_CONFIG, index: 1, cFactor: 9_500_000, lFactor: 9_500_000 },
    data: FRESH_RESERVE_DATA,
    scalar: UNIT,
  },
];

const prices = (xlm: bigint, usdc = UNIT) => ({
  decimals: 7,
  prices: new Map<string, PriceData>([
    [XLM, { price: xlm, timestamp: 1n }],
    [USDC, { price: usdc, timestamp: 1n }],
  ]),
});

const position = (xlmCollateral: bigint, usdcDebt: bigint): Positions => ({
  collateral: new Map([[0, xlmCollateral]]),
  liabilities: usdcDebt > 0n ? new Map([[1, usdcDebt]]) : new Map(),
  supply: new Map(),
});

describe('assessPosition', () => {
  it('values the demo "near danger" wallet as the pool does: HF 1.125, high, REPAY', () => {
    // Effective collateral 10 000 x 0.75 x $0.30 = 2250; effective debt 1900 / 0.95 = 2000.
    const risk = assessPosition(reserves, prices(3_000_000n), position(10_000n * UNIT, 1_900n * UNIT));
    expect(risk).toEqual({
      healthFactorScaled: 11_250_000n,
      healthFactor: 1.125,
      riskLevel: 'high',
      triggers: ['low_health_factor'],
      collateralValueUsd: 3000,
      liabilityValueUsd: 1900,
      recommendedAction: 'REPAY',
    });
  });

  it.each([
    [4_000_000n, 'low', 'HOLD', []],
    [3_500_000n, 'medium', 'WATCH', ['low_health_factor']],
    [2_800_000n, 'critical', 'LIQUIDATE', ['low_health_factor']],
  ] as const)('XLM at %s gives %s and %s', (price, level, action, triggers) => {
    const risk = assessPosition(reserves, prices(price), position(10_000n * UNIT, 1_900n * UNIT));
    expect(risk.riskLevel).toBe(level);
    expect(risk.recommendedAction).toBe(action);
    expect(risk.triggers).toEqual(triggers);
  });

  it('floors collateral and ceils debt at every step, like the contract', () => {
    const odd: Reserve[] = [
      { ...reserves[0], data: { ...FRESH_RESERVE_DATA, bRate: 1_000_000_000_001n } },
      { ...reserves[1], data: { ...FRESH_RESERVE_DATA, dRate: 1_000_000_000_001n } },
    ];
    // 3 bTokens -> 3 underlying (floor of 3.000000000003) -> 2 effective (floor of 2.25) -> 0 at $0.30 (floor 0.6).
    // 3 dTokens -> 4 underlying (ceil) -> 5 effective (ceil of 4.21) -> 5 at $1.
    const risk = assessPosition(odd, prices(3_000_000n), position(3n, 3n));
    expect(risk.healthFactorScaled).toBe(0n);
    expect(risk.liabilityValueUsd).toBe(0.0000004);
    expect(risk.riskLevel).toBe('critical');
  });

  it('has no health factor without debt: low, HOLD, no trigger', () => {
    const risk = assessPosition(reserves, prices(3_000_000n), position(10n * UNIT, 0n));
    expect(risk).toMatchObject({
      healthFactor: null,
      healthFactorScaled: null,
      riskLevel: 'low',
      recommendedAction: 'HOLD',
      triggers: [],
      liabilityValueUsd: 0,
      collateralValueUsd: 3,
    });
  });

  it('refuses to value a position whose asset has no price', () => {
    const noXlm = { decimals: 7, prices: new Map([[USDC, { price: UNIT, timestamp: 1n }]]) };
    expect(() => assessPosition(reserves, noXlm, position(UNIT, UNIT))).toThrow(MissingPriceError);
  });

  it('expresses values in the oracle decimals', () => {
    const fourteen = { decimals: 14, prices: new Map([[XLM, { price: 30_000_000_000_000n, timestamp: 1n }]]) };
    expect(assessPosition(reserves, fourteen, position(2n * UNIT, 0n)).collateralValueUsd).toBe(0.6);
  });
});

describe('holdsCollateralOrDebt', () => {
  it('counts collateral and debt, not plain supply', () => {
    expect(holdsCollateralOrDebt(emptyPositions())).toBe(false);
    expect(holdsCollateralOrDebt({ ...emptyPositions(), supply: new Map([[0, 5n]]) })).toBe(false);
    expect(holdsCollateralOrDebt(position(1n, 0n))).toBe(true);
    expect(holdsCollateralOrDebt(position(0n, 1n))).toBe(true);
  });
});

describe('fixedToNumber', () => {
  it.each([
    [10_812_345n, 7, 1.0812345],
    [0n, 7, 0],
    [5n, 7, 0.0000005],
    [-15n, 1, -1.5],
    [123n, 0, 123],
    [123_456_789_012_345_678_901n, 7, 12_345_678_901_234.568],
  ])('%s with %s decimals is %s', (value, decimals, expected) => {
    expect(fixedToNumber(value, decimals)).toBe(expected);
  });

  it('is the number its decimals parse to, on both sides of 2^53 and for every scale', () => {
    const parsed = (value: bigint, decimals: number) => {
      const magnitude = value < 0n ? -value : value;
      const scale = 10n ** BigInt(decimals);
      const text = `${magnitude / scale}${decimals > 0 ? `.${(magnitude % scale).toString().padStart(decimals, '0')}` : ''}`;
      return value < 0n ? -Number(text) : Number(text);
    };
    let seed = 12_345n;
    for (let i = 0; i < 5000; i += 1) {
      seed = (seed * 6_364_136_223_846_793_005n + 1_442_695_040_888_963_407n) % 2n ** 64n;
      const value = (seed % 2n ** BigInt(40 + (i % 30))) * (i % 7 === 0 ? -1n : 1n);
      const decimals = i % 25;
      expect(fixedToNumber(value, decimals)).toBe(parsed(value, decimals));
    }
    for (const value of [2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 10n ** 22n, 10n ** 22n + 1n]) {
      expect(fixedToNumber(value, 7)).toBe(parsed(value, 7));
      expect(fixedToNumber(value, 22)).toBe(parsed(value, 22));
    }
  });
});
