import { MIN_HEALTH_FACTOR } from './health';
import { type Positions, REQUEST_TYPES, type Request, type Reserve } from './layouts';
import { divCeil, toAssetFromDToken, toBTokenDown, toDTokenDown, totalSupply } from './math';
import { withSlippage } from './position-requests';
import { priceReader } from './position-summary';
import {
  type UnwindFunds,
  type UnwindPosition,
  collateralBaseOf,
  healthOf,
  meetsMinCollateral,
} from './unwind-planner';

/**
 * RESCUE, planned without I/O (docs/adr/027-auction-rescue.md): a user liquidation auction runs against the wallet;
 * Blend v2 lets the user delete it (request 9, `DeleteLiquidationAuction`) in a `submit` whose end state passes the
 * pool's health check (health factor >= 1.0000100, collateral above the pool's minimum; the pool must be active,
 * status 0 or 1). The rescue repays debt with what the wallet holds, then (if that is not enough) supplies
 * collateral from its balances, just enough to reach the target, and deletes the auction in the same call.
 *
 * Levers are used in a fixed order: repayments (largest debt first), then collateral (largest effective value
 * first); every lever but the last is used in full, the last just enough (found by bisection on the pool's
 * fixed-point math). "Enough" is the target health factor and, with debt left, the pool's minimum collateral
 * (`UnwindPosition.minCollateral`): a position under that minimum is rescued by more collateral or by repaying
 * every debt. The target is aimed at plus one basis point, as a partial unwind does: interest accrues until
 * the ledger applies the transaction.
 */

/** The pool statuses under which request 9 is allowed (pool.rs `require_action_allowed`: status > 1 refuses it). */
export const RESCUE_POOL_STATUSES: readonly number[] = [0, 1];
/** Supplying (collateral) is refused by a frozen pool (status > 3). */
const SUPPLY_MAX_STATUS = 3;
/** The margin a rescue aims above its target: one basis point (target / 10,000). */
const AIM_DIVISOR = 10_000n;

export interface RescueOptions {
  /** The wallet (the request 9's address; Blend reads only its type and deletes `from`'s auction). */
  readonly wallet: string;
  readonly slippageBps: number;
  /** Health factor to reach, 7 decimals; at least `MIN_HEALTH_FACTOR`. */
  readonly target: bigint;
  /** Pool status (`PoolConfig.status`). */
  readonly poolStatus: number;
  /** Only this token may be repaid or supplied, when given. */
  readonly token?: string;
}

/** One use of the wallet's funds: a Repay or a SupplyCollateral of `amount` (the request's amount). */
export interface RescueLever {
  readonly requestType: typeof REQUEST_TYPES.Repay | typeof REQUEST_TYPES.SupplyCollateral;
  readonly asset: string;
  readonly amount: bigint;
}

export interface RescuePlan {
  /** The levers, then the DeleteLiquidationAuction. */
  readonly requests: readonly Request[];
  readonly levers: readonly RescueLever[];
  /** Health factors (7 decimals, null without debt) before and as planned after. */
  readonly healthBefore: bigint | null;
  readonly healthAfter: bigint | null;
}

export type RescueRefusal =
  | { readonly refused: 'pool-status'; readonly status: number }
  | { readonly refused: 'not-enough-funds'; readonly healthReachable: bigint | null }
  /** The target is reachable, but not the pool's minimum collateral with debt left (oracle base units). */
  | { readonly refused: 'min-collateral'; readonly collateralReachable: bigint; readonly minCollateral: bigint };

export const isRescueRefusal = (value: RescuePlan | RescueRefusal): value is RescueRefusal => 'refused' in value;

/** The DeleteLiquidationAuction request of `wallet` (the pool ignores its address and amount). */
export const deleteAuctionRequest = (wallet: string): Request => ({
  requestType: REQUEST_TYPES.DeleteLiquidationAuction,
  address: wallet,
  amount: 0n,
});

/**
 * An unwind (or any close) of a wallet an auction runs against: the pool refuses every `submit` of the user while
 * the auction stands (AuctionInProgress, 1212) unless the same call deletes it, and a close leaves the position
 * healthy, so the close carries request 9 last. Unchanged without an auction.
 */
export function withAuctionDeleted<T extends { readonly requests: readonly Request[]; readonly operations: number }>(
  plan: T,
  wallet: string,
  auction: boolean | undefined,
): T {
  if (!auction) return plan;
  return { ...plan, requests: [...plan.requests, deleteAuctionRequest(wallet)], operations: plan.operations + 1 };
}

interface Lever {
  readonly requestType: RescueLever['requestType'];
  readonly reserve: Reserve;
  readonly index: number;
  /** The most of the token this lever may use (underlying). */
  readonly cap: bigint;
  /** Repay only: the whole debt (underlying) the cap may cover. */
  readonly debt?: bigint;
  /** The wallet's balance of the token. */
  readonly balance: bigint;
}

export function planRescue(
  position: UnwindPosition,
  funds: UnwindFunds,
  options: RescueOptions,
): RescuePlan | RescueRefusal {
  if (!RESCUE_POOL_STATUSES.includes(options.poolStatus)) return { refused: 'pool-status', status: options.poolStatus };
  const target = options.target > MIN_HEALTH_FACTOR ? options.target : MIN_HEALTH_FACTOR;
  const aim = target + divCeil(target, AIM_DIVISOR);
  const healthBefore = healthOf(position, position.positions);
  const done = (levers: RescueLever[], positions: Positions): RescuePlan => ({
    requests: [
      ...levers.map((lever) => ({ requestType: lever.requestType, address: lever.asset, amount: lever.amount })),
      deleteAuctionRequest(options.wallet),
    ],
    levers,
    healthBefore,
    healthAfter: healthOf(position, positions),
  });
  const enough = (positions: Positions) =>
    reaches(healthOf(position, positions), aim) && meetsMinCollateral(position, positions);
  if (enough(position.positions)) return done([], position.positions);

  const levers: RescueLever[] = [];
  let positions = position.positions;
  for (const lever of leversOf(position, funds, options)) {
    const full = applyLever(positions, lever, lever.cap);
    if (!enough(full)) {
      levers.push(requestOf(lever, lever.cap, options.slippageBps));
      positions = full;
      continue;
    }
    let low = 1n;
    let high = lever.cap;
    while (low < high) {
      const middle = (low + high) / 2n;
      if (enough(applyLever(positions, lever, middle))) high = middle;
      else low = middle + 1n;
    }
    levers.push(requestOf(lever, low, options.slippageBps));
    return done(levers, applyLever(positions, lever, low));
  }
  const healthReachable = healthOf(position, positions);
  if (reaches(healthReachable, aim) && position.minCollateral !== undefined && position.minCollateral > 0n) {
    return {
      refused: 'min-collateral',
      collateralReachable: collateralBaseOf(position, positions),
      minCollateral: position.minCollateral,
    };
  }
  return { refused: 'not-enough-funds', healthReachable };
}

const reaches = (health: bigint | null, aim: bigint): boolean => health === null || health >= aim;

/** Repayments of the debts the wallet holds tokens of (largest debt first), then collateral it could supply. */
function leversOf(position: UnwindPosition, funds: UnwindFunds, options: RescueOptions): Lever[] {
  const price = priceReader(position.prices);
  const allowed = (asset: string) => options.token === undefined || options.token === asset;
  const value = (reserve: Reserve, amount: bigint) => (amount * price(reserve.asset)) / reserve.scalar;
  const repays: (Lever & { value: bigint })[] = [];
  const supplies: (Lever & { value: bigint })[] = [];
  position.reserves.forEach((reserve, index) => {
    const balance = funds.balances.get(reserve.asset) ?? 0n;
    if (balance <= 0n || !allowed(reserve.asset)) return;
    const dTokens = position.positions.liabilities.get(index) ?? 0n;
    if (dTokens > 0n) {
      const debt = toAssetFromDToken(reserve, dTokens);
      const cap = balance < debt ? balance : debt;
      repays.push({
        requestType: REQUEST_TYPES.Repay,
        reserve,
        index,
        cap,
        debt,
        balance,
        value: value(reserve, debt),
      });
      return; // a token the wallet owes lifts health more repaid than supplied
    }
    if (options.poolStatus > SUPPLY_MAX_STATUS || !reserve.config.enabled || reserve.config.cFactor <= 0) return;
    const room = reserve.config.supplyCap - totalSupply(reserve);
    const cap = balance < room ? balance : room;
    if (cap <= 0n) return;
    const effective = (value(reserve, cap) * BigInt(reserve.config.cFactor)) / 10_000_000n;
    supplies.push({ requestType: REQUEST_TYPES.SupplyCollateral, reserve, index, cap, balance, value: effective });
  });
  const byValue = (a: { value: bigint }, b: { value: bigint }) =>
    a.value === b.value ? 0 : a.value > b.value ? -1 : 1;
  return [...repays.sort(byValue), ...supplies.sort(byValue)];
}

/** The positions after using `amount` of a lever, as the pool accounts for it. */
function applyLever(positions: Positions, lever: Lever, amount: bigint): Positions {
  if (lever.requestType === REQUEST_TYPES.Repay) {
    const liabilities = new Map(positions.liabilities);
    const owed = liabilities.get(lever.index) ?? 0n;
    const burned = amount >= (lever.debt ?? 0n) ? owed : toDTokenDown(lever.reserve, amount);
    if (owed - burned > 0n) liabilities.set(lever.index, owed - burned);
    else liabilities.delete(lever.index);
    return { ...positions, liabilities };
  }
  const collateral = new Map(positions.collateral);
  collateral.set(lever.index, (collateral.get(lever.index) ?? 0n) + toBTokenDown(lever.reserve, amount));
  return { ...positions, collateral };
}

/**
 * The request of a lever: a repayment of the whole debt is padded by the slippage (interest accrues until
 * inclusion; the pool refunds the excess) within the wallet's balance, which `cap` bounds; a partial one is exact.
 */
function requestOf(lever: Lever, amount: bigint, slippageBps: number): RescueLever {
  if (lever.requestType === REQUEST_TYPES.Repay && lever.debt !== undefined && amount >= lever.debt) {
    const padded = withSlippage(lever.debt, slippageBps);
    return {
      requestType: lever.requestType,
      asset: lever.reserve.asset,
      amount: padded < lever.balance ? padded : lever.balance,
    };
  }
  return { requestType: lever.requestType, asset: lever.reserve.asset, amount };
}
