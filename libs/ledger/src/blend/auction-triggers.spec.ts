import { StrKey } from '@stellar/stellar-sdk';
import type { Positions, PriceData, Reserve } from './layouts';
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
const prices = {
  decimals: 7,
  prices: new Map<string, PriceData>([
    [XLM, { price: 3_000_000n, timestamp: 1n }],
    [USDC, { price: UNIT, timestamp: 1n }],
  ]),
};
// Health factor 2.25 x 10 000 x 0.75 x 0.30 / (1 000 / 0.95): low on its own.
const held: Positions = {
  collateral: new Map([[0, 10_000n * UNIT]]),
  liabilities: new Map([[1, 1_000n * UNIT]]),
  supply: new Map(),
};

describe('liquidation_auction', () => {
  it('raises a position with an auction against it to critical, whatever its health factor', () => {
    const risk = assessPosition(reserves, prices, held, undefined, { status: 0, liquidationAuction: true });
    expect(risk.riskLevel).toBe('critical');
    expect(risk.triggers).toEqual(['liquidation_auction']);
    expect(risk.recommendedAction).toBe('LIQUIDATE');
  });

  it('raises nothing without an auction', () => {
    const risk = assessPosition(reserves, prices, held, undefined, { status: 0, liquidationAuction: false });
    expect(risk.riskLevel).toBe('low');
    expect(risk.triggers).toEqual([]);
  });
});
