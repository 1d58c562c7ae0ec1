import { StrKey } from '@stellar/stellar-sdk';
import type { Positions, PriceData, Reserve } from './layouts';
import { assessPosition } from './position-risk';
import { borrowRate, borrowRateJumpTriggers, borrowRates } from './rate-triggers';
import { FRESH_RESERVE_DATA, SAMPLE_RESERVE_CONFIG } from './test-fixtures';

const XLM = StrKey.encodeContract(Buffer.alloc(32, 1));
const USDC = StrKey.encodeContract(Buffer.alloc(32, 2));
const UNIT = 10_000_000n;

/** A reserve with 10 000 supplied and `borrowed` lent out (rates at 1): utilization borrowed / 10 000. */
const reserve = (asset: string, index: number, borrowed: bigint, irMod = 10_000_000n): Reserve => ({
  asset,
  config: { ...SAMPLE_RESERVE_CONFIG, index, cFactor: 7_500_000, lFactor: 9_500_000 },
  data: { ...FRESH_RESERVE_DATA, bSupply: 10_000n * UNIT, dSupply: borrowed * UNIT, irMod },
  scalar: UNIT,
});

// 10 000 XLM collateral, 1 900 USDC debt.
const held: Positions = {
  collateral: new Map([[0, 10_000n * UNIT]]),
  liabilities: new Map([[1, 1_900n * UNIT]]),
  supply: new Map(),
};
const jump = [{ trigger: 'borrow_rate_jump', minimumLevel: 'medium' }];

describe('borrowRate (Blend v2 calc_accrual cur_ir)', () => {
  it.each([
    // Target 50 %, r_base 1 %, r_one 5 %, r_two 50 %, r_three 150 % (the sample reserve).
    [0n, 100_000n], // r_base alone
    [2_500n, 350_000n], // half the target: 1 % + 5 % x 0.5
    [5_000n, 600_000n], // at the target: 1 % + 5 %
    [7_250n, 3_100_000n], // halfway to 95 %: 6 % + 50 % x 0.5
    [9_750n, 13_100_000n], // halfway past 95 %: 56 % + 150 % x 0.5 = 131 %
  ])('at %s of 10 000 lent out is %s (7 decimals)', (borrowed, rate) => {
    expect(borrowRate(reserve(USDC, 1, borrowed))).toBe(rate);
  });

  it('scales with the rate modifier', () => {
    expect(borrowRate(reserve(USDC, 1, 5_000n, 20_000_000n))).toBe(1_200_000n);
  });

  it('maps every reserve by asset', () => {
    expect(borrowRates([reserve(XLM, 0, 0n), reserve(USDC, 1, 5_000n)])).toEqual(
      new Map([
        [XLM, 100_000n],
        [USDC, 600_000n],
      ]),
    );
  });
});

describe('borrowRateJumpTriggers', () => {
  const reserves = [reserve(XLM, 0, 0n), reserve(USDC, 1, 5_000n)]; // USDC at 6 %
  const before = (usdc: bigint) =>
    new Map([
      [XLM, 100_000n],
      [USDC, usdc],
    ]);

  it('raises borrow_rate_jump (medium) when a borrowed reserve charges 1.5 x the last round or more', () => {
    expect(borrowRateJumpTriggers(reserves, held, before(350_000n))).toEqual(jump);
  });

  it('raises it exactly at 1.5 x, not just under', () => {
    expect(borrowRateJumpTriggers(reserves, held, before(400_000n))).toEqual(jump);
    expect(borrowRateJumpTriggers(reserves, held, before(400_001n))).toEqual([]);
  });

  it('raises nothing when the rate stayed, or fell', () => {
    expect(borrowRateJumpTriggers(reserves, held, before(600_000n))).toEqual([]);
    expect(borrowRateJumpTriggers(reserves, held, before(3_100_000n))).toEqual([]);
  });

  it('raises nothing for a reserve the position does not borrow, and without a last round', () => {
    const collateralJumped = new Map([
      [XLM, 1n],
      [USDC, 600_000n],
    ]);
    expect(borrowRateJumpTriggers(reserves, held, collateralJumped)).toEqual([]);
    expect(borrowRateJumpTriggers(reserves, held, undefined)).toEqual([]);
    expect(borrowRateJumpTriggers(reserves, held, new Map())).toEqual([]);
    expect(borrowRateJumpTriggers(reserves, held, new Map([[XLM, 1n]]))).toEqual([]);
  });

  it('counts a rate up from nothing as a jump', () => {
    expect(borrowRateJumpTriggers(reserves, held, before(0n))).toEqual(jump);
  });
});

describe('assessPosition with the last round rates', () => {
  const reserves = [reserve(XLM, 0, 0n), reserve(USDC, 1, 7_250n)]; // USDC at 31 %
  const prices = {
    decimals: 7,
    prices: new Map<string, PriceData>([
      [XLM, { price: 5_000_000n, timestamp: 1n }],
      [USDC, { price: UNIT, timestamp: 1n }],
    ]),
  };

  it('raises a healthy borrower to medium (WATCH) when its borrow rate jumped', () => {
    const risk = assessPosition(reserves, prices, held, undefined, {
      status: 0,
      previousBorrowRates: new Map([[USDC, 600_000n]]),
    });
    expect(risk).toMatchObject({ riskLevel: 'medium', recommendedAction: 'WATCH', triggers: ['borrow_rate_jump'] });
  });

  it('leaves a position without debt low, with nothing borrowed to jump', () => {
    const risk = assessPosition(reserves, prices, { ...held, liabilities: new Map() }, undefined, {
      status: 0,
      previousBorrowRates: new Map([[USDC, 600_000n]]),
    });
    expect(risk).toMatchObject({ riskLevel: 'low', triggers: [] });
  });
});
