import { REQUEST_TYPES, type Positions } from './layouts';
import { toAssetFromBToken, toAssetFromDToken, toBTokenDown, toBTokenUp, toDTokenDown, toDTokenUp } from './math';
import { withSlippage } from './position-requests';
import { fixtureContract, threeReservePool } from './test-fixtures';
import {
  collateralBaseOf,
  type SwapQuote,
  type UnwindPlan,
  type UnwindPosition,
  healthOf,
  planPartialUnwind,
  planUnwindFromWallet,
  planUnwindWithSwap,
  principalDebt,
  saleCandidates,
} from './unwind-planner';

const { usdc: USDC, xlm: XLM, eurc: EURC, reserves: RESERVES, prices: PRICES } = threeReservePool();
const RECEIVER = fixtureContract(9);
const UNIT = 10_000_000n;

/** XLM collateral and USDC debt, in underlying units, as tokens the pool would mint for them. */
function position(xlm: bigint, usdc: bigint, extra: Partial<Record<'eurcDebt' | 'usdcCollateral', bigint>> = {}) {
  const collateral = new Map<number, bigint>([[1, toBTokenDown(RESERVES[1], xlm)]]);
  if (extra.usdcCollateral) collateral.set(0, toBTokenDown(RESERVES[0], extra.usdcCollateral));
  const liabilities = new Map<number, bigint>([[0, toDTokenUp(RESERVES[0], usdc)]]);
  if (extra.eurcDebt) liabilities.set(2, toDTokenUp(RESERVES[2], extra.eurcDebt));
  const positions: Positions = { collateral, liabilities, supply: new Map() };
  return { reserves: RESERVES, positions, prices: PRICES } satisfies UnwindPosition;
}

const funds = (balances: [string, bigint][]) => ({ balances: new Map(balances) });

/** The receiver's quote for selling all 10,000 XLM: 0.30 USD each, 30 bps fee. */
const XLM_FOR_USDC: SwapQuote = { tokenIn: XLM, tokenOut: USDC, amountIn: 10_000n * UNIT, amountOut: 2_991n * UNIT };

function requestsOf(plan: UnwindPlan) {
  return plan.requests.map((r) => [Object.keys(REQUEST_TYPES)[r.requestType], r.address, r.amount]);
}

describe('planUnwindFromWallet', () => {
  it('repays and withdraws everything with a plain submit when the wallet holds every repayment', () => {
    const held = position(10_000n * UNIT, 1_000n * UNIT);
    const plan = planUnwindFromWallet(held, funds([[USDC, 2_000n * UNIT]]), 50) as UnwindPlan;
    expect(plan.route).toBe('submit');
    expect(plan.pulls.size).toBe(0);
    const debt = toAssetFromDToken(RESERVES[0], held.positions.liabilities.get(0) ?? 0n);
    expect(requestsOf(plan)).toEqual([
      ['Repay', USDC, withSlippage(debt, 50)],
      [
        'WithdrawCollateral',
        XLM,
        withSlippage(toAssetFromBToken(RESERVES[1], toBTokenDown(RESERVES[1], 10_000n * UNIT)), 50),
      ],
    ]);
    expect(plan.operations).toBe(2);
  });

  it('nets a debt against collateral of the same token (submit_with_allowance) and pulls only the rest', () => {
    const held = position(10_000n * UNIT, 1_000n * UNIT, { usdcCollateral: 900n * UNIT });
    const plan = planUnwindFromWallet(held, funds([[USDC, 150n * UNIT]]), 50) as UnwindPlan;
    expect(plan.route).toBe('submit-with-allowance');
    const pull = plan.pulls.get(USDC) ?? 0n;
    expect(pull).toBeGreaterThan(100n * UNIT);
    expect(pull).toBeLessThan(101n * UNIT);
  });

  it('names the debt only a sale can pay', () => {
    expect(planUnwindFromWallet(position(10_000n * UNIT, 1_900n * UNIT), funds([]), 50)).toEqual({ needsSwap: [USDC] });
  });

  it('refuses a wallet without a position', () => {
    const empty = {
      ...position(0n, 0n),
      positions: { collateral: new Map(), liabilities: new Map(), supply: new Map() },
    };
    expect(planUnwindFromWallet(empty, funds([]), 50)).toEqual({ refused: 'no-position' });
  });
});

describe('planUnwindWithSwap', () => {
  const held = position(10_000n * UNIT, 1_900n * UNIT);

  it('borrows just enough XLM that its sale, less slippage, repays the USDC debt, and repays the loan in the same call', () => {
    const plan = planUnwindWithSwap(held, funds([]), 50, XLM_FOR_USDC, RECEIVER) as UnwindPlan;
    expect(plan.route).toBe('flash-loan');
    expect(plan.flashLoan?.contract).toBe(RECEIVER);
    expect(plan.flashLoan?.asset).toBe(XLM);
    const loan = plan.flashLoan?.amount ?? 0n;
    const pull = plan.pulls.get(USDC) ?? 0n;
    expect(plan.swapMinimum).toBeGreaterThanOrEqual(pull);
    // One XLM less would not do: the loan is the smallest that covers the pull.
    const quoted = ((loan - UNIT) * XLM_FOR_USDC.amountOut) / XLM_FOR_USDC.amountIn;
    expect((quoted * 9950n) / 10_000n - 1n).toBeLessThan(pull);
    expect(plan.pulls.has(XLM)).toBe(false);
    expect(requestsOf(plan).map(([type, asset]) => [type, asset])).toEqual([
      ['Repay', USDC],
      ['Repay', XLM],
      ['WithdrawCollateral', XLM],
    ]);
    expect(plan.operations).toBe(4);
  });

  it('uses the USDC the wallet already holds and borrows less', () => {
    const none = planUnwindWithSwap(held, funds([]), 50, XLM_FOR_USDC, RECEIVER) as UnwindPlan;
    const some = planUnwindWithSwap(held, funds([[USDC, 500n * UNIT]]), 50, XLM_FOR_USDC, RECEIVER) as UnwindPlan;
    expect(some.flashLoan?.amount).toBeLessThan(none.flashLoan?.amount ?? 0n);
  });

  it('refuses when another debt is left that the wallet cannot pay', () => {
    const twoDebts = position(10_000n * UNIT, 1_000n * UNIT, { eurcDebt: 100n * UNIT });
    expect(planUnwindWithSwap(twoDebts, funds([]), 50, XLM_FOR_USDC, RECEIVER)).toEqual({
      refused: 'wallet-short',
      asset: EURC,
    });
  });

  it('refuses a slippage of 100 %: the sale would guarantee nothing', () => {
    expect(planUnwindWithSwap(held, funds([]), 10_000, XLM_FOR_USDC, RECEIVER)).toEqual({ refused: 'no-swap-output' });
  });
});

describe('planPartialUnwind', () => {
  const held = position(10_000n * UNIT, 1_900n * UNIT);

  it('sells the least collateral that brings the health factor to the target', () => {
    const target = 15_000_000n;
    expect(healthOf(held, held.positions)).toBeLessThan(target);
    const plan = planPartialUnwind(held, funds([]), 50, XLM_FOR_USDC, RECEIVER, target) as UnwindPlan;
    expect(plan.route).toBe('flash-loan');
    const [repay, withdraw, repayLoan] = plan.requests;
    expect([repay.requestType, withdraw.requestType, repayLoan.requestType]).toEqual([
      REQUEST_TYPES.Repay,
      REQUEST_TYPES.WithdrawCollateral,
      REQUEST_TYPES.Repay,
    ]);
    // The collateral withdrawn and the loan repaid cancel out in settlement; the sale pays the USDC repaid.
    expect(withdraw.amount).toBe(repayLoan.amount);
    expect(plan.pulls.get(USDC)).toBe(repay.amount);
    expect(plan.swapMinimum).toBeGreaterThanOrEqual(repay.amount);

    // Applied as the pool applies them: the loan's debt is repaid in full, the collateral and the USDC debt shrink.
    const after = healthOf(held, {
      collateral: new Map([[1, (held.positions.collateral.get(1) ?? 0n) - toBTokenUp(RESERVES[1], withdraw.amount)]]),
      liabilities: new Map([[0, (held.positions.liabilities.get(0) ?? 0n) - toDTokenDown(RESERVES[0], repay.amount)]]),
      supply: new Map(),
    });
    // One basis point above the target, for the interest that accrues before the ledger applies it; within 0.1 %.
    expect(after).toBeGreaterThanOrEqual(target + target / 10_000n);
    expect(after).toBeLessThan(target + target / 1000n);
    expect(repayLoan.amount).toBeGreaterThan(plan.flashLoan?.amount ?? 0n);
  });

  it('refuses when the position is already at the target', () => {
    expect(planPartialUnwind(held, funds([]), 50, XLM_FOR_USDC, RECEIVER, 11_000_000n)).toMatchObject({
      refused: 'target-reached',
    });
  });

  it("refuses an end state with debt under the pool's minimum collateral, and plans alike above it", () => {
    const target = 15_000_000n;
    const plain = planPartialUnwind(held, funds([]), 50, XLM_FOR_USDC, RECEIVER, target) as UnwindPlan;
    const withdrawn = plain.requests[1].amount;
    const left = collateralBaseOf(held, {
      collateral: new Map([[1, (held.positions.collateral.get(1) ?? 0n) - toBTokenUp(RESERVES[1], withdrawn)]]),
      liabilities: held.positions.liabilities,
      supply: new Map(),
    });
    expect(planPartialUnwind({ ...held, minCollateral: left }, funds([]), 50, XLM_FOR_USDC, RECEIVER, target)).toEqual(
      plain,
    );
    expect(
      planPartialUnwind({ ...held, minCollateral: left + 1n }, funds([]), 50, XLM_FOR_USDC, RECEIVER, target),
    ).toEqual({
      refused: 'min-collateral',
      collateralLeft: left,
      minCollateral: left + 1n,
    });
  });

  it('refuses a position without debt', () => {
    const noDebt = { ...held, positions: { ...held.positions, liabilities: new Map() } };
    expect(planPartialUnwind(noDebt, funds([]), 50, XLM_FOR_USDC, RECEIVER, 15_000_000n)).toEqual({
      refused: 'no-position',
    });
  });
});

describe('choosing what to sell and repay', () => {
  it('offers collateral other than the debt token, most valuable first, and names the largest debt', () => {
    const held = position(10_000n * UNIT, 1_000n * UNIT, { usdcCollateral: 50n * UNIT, eurcDebt: 2_000n * UNIT });
    expect(saleCandidates(held, USDC)).toEqual([XLM]);
    expect(saleCandidates(held, EURC)).toEqual([XLM, USDC]);
    expect(principalDebt(held)).toBe(EURC);
  });
});
