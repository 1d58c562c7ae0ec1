import { StrKey } from '@stellar/stellar-sdk';
import type { Positions, PriceData, Reserve } from './layouts';
import { depegTriggers, poolStatusTriggers, utilizationBps, utilizationTriggers } from './pool-triggers';
import { assessPosition } from './position-risk';
import { FRESH_RESERVE_DATA, SAMPLE_RESERVE_CONFIG } from './test-fixtures';

const XLM = StrKey.encodeContract(Buffer.alloc(32, 1));
const USDC = StrKey.encodeContract(Buffer.alloc(32, 2));
const UNIT = 10_000_000n;

const reserves: Reserve[] = [
  {
    asset: XLM,
    config: { ...SAMPLE_RESERVE_CONFIG, index: 0, cFactor: 7_500_000 },
    data: FRESH_RESERVE_DATA,
    scalar: UNIT,
  },
  {
    asset: USDC,
    config: { ...SAMPLE_RESERVE_CONFIG, index: 1, lFactor: 9_500_000 },
    data: FRESH_RESERVE_DATA,
    scalar: UNIT,
  },
];

const prices = (xlm: bigint) => ({
  decimals: 7,
  prices: new Map<string, PriceData>([
    [XLM, { price: xlm, timestamp: 1n }],
    [USDC, { price: UNIT, timestamp: 1n }],
  ]),
});

// 10 000 XLM collateral, 1 900 USDC debt.
const held: Positions = {
  collateral: new Map([[0, 10_000n * UNIT]]),
  liabilities: new Map([[1, 1_900n * UNIT]]),
  supply: new Map(),
};

describe('poolStatusTriggers', () => {
  it.each([
    [0, []],
    [1, []],
    [2, [{ trigger: 'pool_on_ice', minimumLevel: 'medium' }]],
    [3, [{ trigger: 'pool_on_ice', minimumLevel: 'medium' }]],
    [4, [{ trigger: 'pool_frozen', minimumLevel: 'high' }]],
    [5, [{ trigger: 'pool_frozen', minimumLevel: 'high' }]],
    [6, [{ trigger: 'pool_frozen', minimumLevel: 'high' }]],
  ] as const)('status %s raises %j', (status, expected) => {
    expect(poolStatusTriggers(status)).toEqual(expected);
  });
});

describe('assessPosition with the pool status', () => {
  it('raises a healthy position in a pool on ice to medium (WATCH) with pool_on_ice only', () => {
    const risk = assessPosition(reserves, prices(4_000_000n), held, undefined, { status: 3 });
    expect(risk).toMatchObject({ riskLevel: 'medium', recommendedAction: 'WATCH', triggers: ['pool_on_ice'] });
  });

  it('raises a healthy position in a frozen pool to high (REPAY)', () => {
    const risk = assessPosition(reserves, prices(4_000_000n), held, undefined, { status: 5 });
    expect(risk).toMatchObject({ riskLevel: 'high', recommendedAction: 'REPAY', triggers: ['pool_frozen'] });
  });

  it('keeps the worse health-factor level and lists both triggers', () => {
    const risk = assessPosition(reserves, prices(2_800_000n), held, undefined, { status: 2 });
    expect(risk).toMatchObject({ riskLevel: 'critical', triggers: ['low_health_factor', 'pool_on_ice'] });
  });

  it('names the trigger but raises nothing without debt: nothing to repay', () => {
    const collateralOnly: Positions = { ...held, liabilities: new Map() };
    const risk = assessPosition(reserves, prices(4_000_000n), collateralOnly, undefined, { status: 5 });
    expect(risk).toMatchObject({ healthFactor: null, riskLevel: 'low', triggers: ['pool_frozen'] });
    expect(risk.recommendedAction).not.toBe('REPAY');
  });

  it('raises nothing in an active pool', () => {
    const risk = assessPosition(reserves, prices(4_000_000n), held, undefined, { status: 1 });
    expect(risk).toMatchObject({ riskLevel: 'low', triggers: [] });
  });
});

describe('high_utilization', () => {
  // USDC (borrowed) with 1 000 supplied; `lent` of it borrowed; rates 1.0 unless given.
  const usdcAt = (lent: bigint, dRate = 1_000_000_000_000n): Reserve[] => [
    reserves[0],
    { ...reserves[1], data: { ...FRESH_RESERVE_DATA, bSupply: 1_000n * UNIT, dSupply: lent * UNIT, dRate } },
  ];

  it('is d_supply x d_rate / (b_supply x b_rate), floored to basis points; null without supply', () => {
    expect(utilizationBps(usdcAt(800n)[1])).toBe(8000);
    expect(utilizationBps(usdcAt(800n, 1_100_000_000_000n)[1])).toBe(8800);
    expect(utilizationBps({ ...reserves[1], data: FRESH_RESERVE_DATA })).toBeNull();
  });

  it.each([
    [799n, []],
    [800n, [{ trigger: 'high_utilization', minimumLevel: 'medium' }]],
    [900n, [{ trigger: 'high_utilization', minimumLevel: 'high' }]],
  ] as const)('%s of 1 000 lent, default bounds: %j', (lent, expected) => {
    expect(utilizationTriggers(usdcAt(lent), held)).toEqual(expected);
  });

  it("follows the wallet's bounds, and only reserves the position borrows", () => {
    const bounds = { medium: 15_000_000n, high: 12_500_000n, critical: 11_000_000n, utilizationWarnBps: 500 };
    expect(utilizationTriggers(usdcAt(50n), held, bounds)).toEqual([
      { trigger: 'high_utilization', minimumLevel: 'medium' },
    ]);
    const lender: Positions = { ...held, liabilities: new Map() };
    expect(utilizationTriggers(usdcAt(950n), lender)).toEqual([]);
  });

  it('raises a healthy position to high, after the pool triggers', () => {
    const risk = assessPosition(usdcAt(950n), prices(4_000_000n), held, undefined, { status: 2 });
    expect(risk).toMatchObject({ riskLevel: 'high', triggers: ['pool_on_ice', 'high_utilization'] });
  });
});

describe('stablecoin_depeg', () => {
  const usdcPriced = (usdc: bigint) => ({
    decimals: 7,
    prices: new Map<string, PriceData>([
      [XLM, { price: 4_000_000n, timestamp: 1n }],
      [USDC, { price: usdc, timestamp: 1n }],
    ]),
  });
  const stable = new Set([USDC]);

  it.each([
    [10_200_000n, []], // +200 bps: at the bound, not beyond it
    [9_800_000n, []],
    [10_200_001n, [{ trigger: 'stablecoin_depeg', minimumLevel: 'high' }]],
    [9_700_000n, [{ trigger: 'stablecoin_depeg', minimumLevel: 'high' }]],
  ] as const)('USDC at %s, default 200 bps: %j', (price, expected) => {
    expect(depegTriggers(reserves, usdcPriced(price), held, stable)).toEqual(expected);
  });

  it("follows the wallet's bound, and only stablecoins the position holds or owes", () => {
    const bounds = { medium: 15_000_000n, high: 12_500_000n, critical: 11_000_000n, depegBps: 50 };
    expect(depegTriggers(reserves, usdcPriced(9_900_000n), held, stable, bounds)).toHaveLength(1);
    expect(
      depegTriggers(reserves, usdcPriced(9_000_000n), held, new Set([StrKey.encodeContract(Buffer.alloc(32, 3))])),
    ).toEqual([]);
    expect(depegTriggers(reserves, usdcPriced(9_000_000n), held, undefined)).toEqual([]);
    const noUsdc: Positions = { ...held, liabilities: new Map() };
    expect(depegTriggers(reserves, usdcPriced(9_000_000n), noUsdc, stable)).toEqual([]);
  });

  it('raises a healthy position to high through assessPosition', () => {
    const risk = assessPosition(reserves, usdcPriced(9_500_000n), held, undefined, { status: 1, stablecoins: stable });
    expect(risk).toMatchObject({ riskLevel: 'high', triggers: ['stablecoin_depeg'] });
  });
});
