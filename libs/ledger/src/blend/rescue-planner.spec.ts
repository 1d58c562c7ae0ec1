import { Keypair } from '@stellar/stellar-sdk';
import { REQUEST_TYPES, type Positions } from './layouts';
import { toAssetFromDToken, toBTokenDown, toDTokenUp } from './math';
import { withSlippage } from './position-requests';
import { type RescueOptions, type RescuePlan, isRescueRefusal, planRescue, withAuctionDeleted } from './rescue-planner';
import { threeReservePool } from './test-fixtures';
import { type UnwindPosition, collateralBaseOf, healthOf } from './unwind-planner';

const { usdc: USDC, eurc: EURC, reserves: RESERVES, prices: PRICES } = threeReservePool();
const WALLET = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1)).publicKey();
const UNIT = 10_000_000n;
const TARGET = 11_000_000n;
const SLIPPAGE = 100;

/** 10,000 XLM of collateral ($3,000, $2,250 after its factor) and 2,200 USDC of debt: health factor ~0.97. */
function underwater(usdcDebt = 2_200n * UNIT): UnwindPosition {
  const positions: Positions = {
    collateral: new Map([[1, toBTokenDown(RESERVES[1], 10_000n * UNIT)]]),
    liabilities: new Map([[0, toDTokenUp(RESERVES[0], usdcDebt)]]),
    supply: new Map(),
  };
  return { reserves: RESERVES, positions, prices: PRICES };
}

const funds = (balances: [string, bigint][]) => ({ balances: new Map(balances) });
const options: RescueOptions = { wallet: WALLET, slippageBps: SLIPPAGE, target: TARGET, poolStatus: 1 };
const rescue = (position: UnwindPosition, balances: [string, bigint][], extra: Partial<RescueOptions> = {}) =>
  planRescue(position, funds(balances), { ...options, ...extra });

/** The positions a plan leaves, applying its requests as the pool does (repay burns dTokens down, supply mints bTokens down). */
function after(position: UnwindPosition, plan: RescuePlan): Positions {
  const liabilities = new Map(position.positions.liabilities);
  const collateral = new Map(position.positions.collateral);
  for (const lever of plan.levers) {
    const index = RESERVES.findIndex((r) => r.asset === lever.asset);
    if (lever.requestType === REQUEST_TYPES.Repay) {
      const owed = liabilities.get(index) ?? 0n;
      const debt = toAssetFromDToken(RESERVES[index], owed);
      const burned = lever.amount >= debt ? owed : (lever.amount * 1_000_000_000_000n) / RESERVES[index].data.dRate;
      liabilities.set(index, owed - burned);
    } else {
      collateral.set(index, (collateral.get(index) ?? 0n) + toBTokenDown(RESERVES[index], lever.amount));
    }
  }
  return { liabilities, collateral, supply: new Map() };
}

describe('planRescue', () => {
  it('repays just enough USDC to reach the target plus one basis point, then deletes the auction (request 9)', () => {
    const position = underwater();
    expect(healthOf(position, position.positions)).toBeLessThan(10_000_000n);
    const plan = rescue(position, [[USDC, 1_000n * UNIT]]) as RescuePlan;
    expect(isRescueRefusal(plan)).toBe(false);
    expect(plan.levers).toHaveLength(1);
    const [repay] = plan.levers;
    expect(repay.requestType).toBe(REQUEST_TYPES.Repay);
    // By hand: debt D with D x 1.0009 / 0.95 <= 2,250 x 1.0003 / 1.10011 -> about 257 USDC repaid.
    expect(repay.amount).toBeGreaterThan(250n * UNIT);
    expect(repay.amount).toBeLessThan(265n * UNIT);
    expect(plan.requests.at(-1)).toEqual({
      requestType: REQUEST_TYPES.DeleteLiquidationAuction,
      address: WALLET,
      amount: 0n,
    });
    expect(plan.requests).toHaveLength(2);
    const health = healthOf(position, after(position, plan)) as bigint;
    expect(health).toBeGreaterThanOrEqual(TARGET + TARGET / 10_000n);
    expect(health).toBeLessThan(TARGET + (2n * TARGET) / 10_000n);
    expect(plan.healthAfter).toBe(health);
    // Just enough: one unit less does not reach the aim.
    const less = { ...plan, levers: [{ ...repay, amount: repay.amount - 1n }] };
    expect(healthOf(position, after(position, less))).toBeLessThan(TARGET + TARGET / 10_000n);
  });

  it('repays all it holds of the debt, then supplies another token as collateral, just enough', () => {
    const position = underwater();
    const plan = rescue(position, [
      [USDC, 100n * UNIT],
      [EURC, 5_000n * UNIT],
    ]) as RescuePlan;
    expect(plan.levers.map((lever) => [lever.requestType, lever.asset])).toEqual([
      [REQUEST_TYPES.Repay, USDC],
      [REQUEST_TYPES.SupplyCollateral, EURC],
    ]);
    expect(plan.levers[0].amount).toBe(100n * UNIT);
    expect(plan.levers[1].amount).toBeLessThan(500n * UNIT);
    expect(healthOf(position, after(position, plan))).toBeGreaterThanOrEqual(TARGET + TARGET / 10_000n);
    expect(plan.requests.map((request) => request.requestType)).toEqual([
      REQUEST_TYPES.Repay,
      REQUEST_TYPES.SupplyCollateral,
      REQUEST_TYPES.DeleteLiquidationAuction,
    ]);
  });

  it('a whole debt repaid is padded by the slippage, within what the wallet holds', () => {
    const position = underwater();
    const debt = toAssetFromDToken(RESERVES[0], position.positions.liabilities.get(0) as bigint);
    // A target no partial repayment reaches: only the whole debt does.
    const unreachable = { target: 10n ** 19n };
    const tight = rescue(position, [[USDC, debt + 5n]], unreachable) as RescuePlan;
    expect(tight.levers).toEqual([{ requestType: REQUEST_TYPES.Repay, asset: USDC, amount: debt + 5n }]);
    const rich = rescue(position, [[USDC, 10_000n * UNIT]], unreachable) as RescuePlan;
    expect(rich.levers).toEqual([
      { requestType: REQUEST_TYPES.Repay, asset: USDC, amount: withSlippage(debt, SLIPPAGE) },
    ]);
    expect(rich.healthAfter).toBeNull();
  });

  it('a position already at the target only deletes the auction', () => {
    const plan = rescue(underwater(1_000n * UNIT), []) as RescuePlan;
    expect(plan.levers).toEqual([]);
    expect(plan.requests).toEqual([
      { requestType: REQUEST_TYPES.DeleteLiquidationAuction, address: WALLET, amount: 0n },
    ]);
  });

  it('is refused when the wallet cannot reach the target with what it holds', () => {
    const refusal = rescue(underwater(), [[USDC, 10n * UNIT]]);
    expect(refusal).toEqual({ refused: 'not-enough-funds', healthReachable: expect.any(BigInt) });
    expect(rescue(underwater(), [])).toMatchObject({ refused: 'not-enough-funds' });
  });

  describe("with the pool's minimum collateral (MinCollateralNotMet otherwise)", () => {
    // Effective collateral $2,250; the pool asks $3,000 of a position with debt.
    const minimum = 3_000n * UNIT;
    const guarded = (): UnwindPosition => ({ ...underwater(), minCollateral: minimum });

    it('supplies collateral up to the minimum, more than the target alone needs', () => {
      const balances: [string, bigint][] = [[EURC, 5_000n * UNIT]];
      const plain = rescue(underwater(), balances) as RescuePlan;
      const plan = rescue(guarded(), balances) as RescuePlan;
      expect(plan.levers.map((lever) => [lever.requestType, lever.asset])).toEqual([
        [REQUEST_TYPES.SupplyCollateral, EURC],
      ]);
      expect(plan.levers[0].amount).toBeGreaterThan(plain.levers[0].amount);
      const collateral = collateralBaseOf(guarded(), after(guarded(), plan));
      expect(collateral).toBeGreaterThanOrEqual(minimum);
      // Just enough: one unit less would miss the minimum.
      const less = { ...plan, levers: [{ ...plan.levers[0], amount: plan.levers[0].amount - 1n }] };
      expect(collateralBaseOf(guarded(), after(guarded(), less))).toBeLessThan(minimum);
    });

    it('repays every debt when that is what the wallet holds (no debt, no minimum)', () => {
      const plan = rescue(guarded(), [[USDC, 3_000n * UNIT]]) as RescuePlan;
      expect(plan.levers).toHaveLength(1);
      expect(plan.levers[0].amount).toBeGreaterThan(2_200n * UNIT);
      expect(plan.healthAfter).toBeNull();
      expect([...after(guarded(), plan).liabilities.values()].every((dTokens) => dTokens === 0n)).toBe(true);
    });

    it('is refused, naming the minimum, when health is reachable but the minimum is not', () => {
      expect(rescue(guarded(), [[USDC, 1_000n * UNIT]])).toEqual({
        refused: 'min-collateral',
        collateralReachable: collateralBaseOf(guarded(), guarded().positions),
        minCollateral: minimum,
      });
      // The same funds rescue a position the pool asks no minimum of.
      expect(isRescueRefusal(rescue(underwater(), [[USDC, 1_000n * UNIT]]))).toBe(false);
    });
  });

  it('is refused when the pool is not active (Blend refuses request 9 at status 2 and above)', () => {
    expect(rescue(underwater(), [[USDC, 1_000n * UNIT]], { poolStatus: 2 })).toEqual({
      refused: 'pool-status',
      status: 2,
    });
  });

  it('does not supply collateral in a frozen-for-supply pool, nor a token other than the one asked for', () => {
    const balances: [string, bigint][] = [[EURC, 5_000n * UNIT]];
    expect(isRescueRefusal(rescue(underwater(), balances))).toBe(false);
    expect(rescue(underwater(), balances, { token: USDC })).toMatchObject({ refused: 'not-enough-funds' });
    const disabled: UnwindPosition = {
      ...underwater(),
      reserves: RESERVES.map((r) => (r.asset === EURC ? { ...r, config: { ...r.config, enabled: false } } : r)),
    };
    expect(rescue(disabled, balances)).toMatchObject({ refused: 'not-enough-funds' });
  });

  it('a close during an auction carries request 9 last; without one it is unchanged', () => {
    const close = {
      requests: [{ requestType: REQUEST_TYPES.Repay, address: USDC, amount: UNIT }],
      operations: 1,
      route: 'submit',
    };
    expect(withAuctionDeleted(close, WALLET, false)).toBe(close);
    expect(withAuctionDeleted(close, WALLET, true)).toEqual({
      ...close,
      requests: [
        ...close.requests,
        { requestType: REQUEST_TYPES.DeleteLiquidationAuction, address: WALLET, amount: 0n },
      ],
      operations: 2,
    });
  });
});
