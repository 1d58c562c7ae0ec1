import { StrKey } from '@stellar/stellar-sdk';
import type { Positions, PriceData, Reserve } from './layouts';
import { poolStatusTriggers } from './pool-triggers';
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

  it('raises nothing in an active pool', () => {
    const risk = assessPosition(reserves, prices(4_000_000n), held, undefined, { status: 1 });
    expect(risk).toMatchObject({ riskLevel: 'low', triggers: [] });
  });
});
