import { healthFactor, positionData } from './health';
import { type Positions, REQUEST_TYPES, type Request, type Reserve } from './layouts';
import { divCeil, toAssetFromBToken, toAssetFromDToken, toBTokenUp, toDTokenDown, toDTokenUp } from './math';
import { BPS_SCALE, withSlippage } from './position-requests';
import { type SummaryPrices, priceReader } from './position-summary';

/**
 * UNWIND, planned without I/O (docs/adr/010-unwind-construction.md). A full unwind repays every liability and
 * withdraws every collateral of the pool in one invocation, by the cheapest route the wallet's balances allow:
 *
 * - `submit`: the wallet holds every repayment (transfers are not netted);
 * - `submit-with-allowance`: it does not, but what the collateral returns in the same tokens covers the rest
 *   (transfers netted per token, the remainder pulled with `transfer_from`);
 * - `flash-loan`: a debt is left that only selling collateral can pay. The pool lends collateral asset F, the receiver
 *   sells it for the debt token T and pays the wallet, and the requests repay T, repay the loan of F and withdraw
 *   the collateral; settlement nets per token and pulls what the wallet owes with `transfer_from`.
 *
 * A partial unwind (a target health factor) is always the flash-loan route, sized to reach the target.
 * Every amount the pool may pull with `transfer_from` is reported in `pulls`: the wallet must have approved it.
 */

export interface UnwindPosition {
  /** The pool's reserves in reserve-index order, accrued to now. */
  readonly reserves: readonly Reserve[];
  readonly positions: Positions;
  readonly prices: SummaryPrices;
  /**
   * The pool's `min_collateral` (`PoolConfig`, in the oracle's base units): a `submit` that checks health also refuses
   * an end state with debt whose effective collateral is below it (MinCollateralNotMet). Absent or 0: no minimum.
   */
  readonly minCollateral?: bigint;
}

export interface UnwindFunds {
  /** The wallet's balance of each token of the position (absent: none). */
  readonly balances: ReadonlyMap<string, bigint>;
}

/** What the receiver's `quote` answered for selling `amountIn` of `tokenIn` for `tokenOut`. */
export interface SwapQuote {
  readonly tokenIn: string;
  readonly tokenOut: string;
  readonly amountIn: bigint;
  readonly amountOut: bigint;
}

export type UnwindRoute = 'submit' | 'submit-with-allowance' | 'flash-loan';

export interface UnwindPlan {
  readonly route: UnwindRoute;
  readonly requests: readonly Request[];
  /** Requests in the invocation, the flash loan counted as one. */
  readonly operations: number;
  /** Token -> the most the pool may pull from the wallet with `transfer_from` (the allowance it needs). */
  readonly pulls: ReadonlyMap<string, bigint>;
  /** `flash-loan` only. */
  readonly flashLoan?: { readonly contract: string; readonly asset: string; readonly amount: bigint };
  /** `flash-loan` only: the least the sale pays the wallet, after slippage, in `debtAsset`. */
  readonly swapMinimum?: bigint;
  /** The debt token repaid with the sale (`flash-loan`), else the largest debt. */
  readonly debtAsset?: string;
}

export type UnwindRefusal =
  | { readonly refused: 'no-position' }
  | { readonly refused: 'no-debt' }
  | { readonly refused: 'target-reached'; readonly healthFactor: bigint }
  | { readonly refused: 'target-unreachable'; readonly asset: string }
  | { readonly refused: 'wallet-short'; readonly asset: string }
  | { readonly refused: 'no-swap-output' }
  /** A partial unwind at its target would leave debt with less effective collateral than the pool's minimum. */
  | { readonly refused: 'min-collateral'; readonly collateralLeft: bigint; readonly minCollateral: bigint };

/** The wallet cannot pay these debts from its balance or the collateral it gets back: a sale is needed. */
export interface SwapNeeded {
  readonly needsSwap: readonly string[];
}

export const isRefusal = (value: object): value is UnwindRefusal => 'refused' in value;

interface Holding {
  readonly reserve: Reserve;
  readonly index: number;
  readonly collateral: bigint;
  readonly debt: bigint;
}

/** Underlying collateral (floor) and debt (ceil) per asset the wallet holds either in. */
export function holdingsOf(position: UnwindPosition): Map<string, Holding> {
  const holdings = new Map<string, Holding>();
  position.reserves.forEach((reserve, index) => {
    const bTokens = position.positions.collateral.get(index) ?? 0n;
    const dTokens = position.positions.liabilities.get(index) ?? 0n;
    if (bTokens === 0n && dTokens === 0n) return;
    holdings.set(reserve.asset, {
      reserve,
      index,
      collateral: toAssetFromBToken(reserve, bTokens),
      debt: toAssetFromDToken(reserve, dTokens),
    });
  });
  return holdings;
}

const balanceOf = (funds: UnwindFunds, asset: string): bigint => funds.balances.get(asset) ?? 0n;
const positive = (value: bigint): bigint => (value > 0n ? value : 0n);

/**
 * A full unwind the wallet can pay for itself (`submit` or `submit-with-allowance`), or the debt tokens it cannot,
 * which need a sale of collateral (`planUnwindWithSwap`).
 */
export function planUnwindFromWallet(
  position: UnwindPosition,
  funds: UnwindFunds,
  slippageBps: number,
): UnwindPlan | SwapNeeded | UnwindRefusal {
  const holdings = holdingsOf(position);
  if (holdings.size === 0) return { refused: 'no-position' };
  const requests = fullUnwindRequests(holdings, new Map(), slippageBps);
  const debts = [...holdings.entries()].filter(([, holding]) => holding.debt > 0n);
  const largestDebt = largestDebtAsset(position, holdings);
  if (debts.every(([asset, holding]) => balanceOf(funds, asset) >= withSlippage(holding.debt, slippageBps))) {
    return { route: 'submit', requests, operations: requests.length, pulls: new Map(), debtAsset: largestDebt };
  }
  const pulls = nettedPulls(holdings, new Map(), slippageBps);
  const short = [...pulls.entries()].filter(([asset, pull]) => balanceOf(funds, asset) < pull).map(([a]) => a);
  if (short.length > 0) return { needsSwap: short };
  return { route: 'submit-with-allowance', requests, operations: requests.length, pulls, debtAsset: largestDebt };
}

/** A full unwind that sells collateral `swap.tokenIn` for the debt token `swap.tokenOut` through `receiver`. */
export function planUnwindWithSwap(
  position: UnwindPosition,
  funds: UnwindFunds,
  slippageBps: number,
  swap: SwapQuote,
  receiver: string,
): UnwindPlan | UnwindRefusal {
  const holdings = holdingsOf(position);
  const sold = holdings.get(swap.tokenIn);
  const debt = holdings.get(swap.tokenOut);
  if (!sold || sold.collateral === 0n || !debt || debt.debt === 0n) return { refused: 'no-position' };
  const guaranteed = BPS_SCALE - BigInt(slippageBps);
  if (guaranteed <= 0n || swap.amountOut <= 0n || swap.amountIn <= 0n) return { refused: 'no-swap-output' };

  const basePull = withSlippage(positive(debt.debt - debt.collateral), slippageBps);
  const needed = basePull - balanceOf(funds, swap.tokenOut);
  // Smallest loan whose sale, less slippage, still pays what the wallet lacks (two units more for the roundings).
  const loan = positive(divCeil((needed + 2n) * BPS_SCALE * swap.amountIn, guaranteed * swap.amountOut)) + 1n;
  const swapMinimum = saleMinimum(swap, loan, slippageBps);

  const borrowed = new Map([[swap.tokenIn, loan]]);
  const requests = fullUnwindRequests(holdings, borrowed, slippageBps);
  const pulls = nettedPulls(holdings, borrowed, slippageBps);
  for (const [asset, pull] of pulls) {
    const available = balanceOf(funds, asset) + (asset === swap.tokenOut ? swapMinimum : 0n);
    if (available < pull) return { refused: 'wallet-short', asset };
  }
  return {
    route: 'flash-loan',
    requests,
    operations: requests.length + 1,
    pulls,
    flashLoan: { contract: receiver, asset: swap.tokenIn, amount: loan },
    swapMinimum,
    debtAsset: swap.tokenOut,
  };
}

/**
 * A partial unwind: the smallest sale of collateral `swap.tokenIn` whose proceeds, repaid on `swap.tokenOut`,
 * bring the health factor (7 decimals) to at least `target`. Requests: repay the debt with the proceeds, withdraw the
 * sold collateral, repay the flash loan with it (the two cancel in settlement). The sale aims one basis point above
 * the target: interest accrues between the read and the ledger that applies the transaction (a few seconds to the
 * proposal's five minutes), and a position must not land a hair under the health factor its owner asked for. Refused
 * (`min-collateral`) when that end state keeps debt under the pool's minimum collateral: only a full unwind passes then.
 */
export function planPartialUnwind(
  position: UnwindPosition,
  funds: UnwindFunds,
  slippageBps: number,
  swap: SwapQuote,
  receiver: string,
  target: bigint,
): UnwindPlan | UnwindRefusal {
  const holdings = holdingsOf(position);
  const sold = holdings.get(swap.tokenIn);
  const debt = holdings.get(swap.tokenOut);
  if (!sold || sold.collateral === 0n || !debt || debt.debt === 0n) return { refused: 'no-position' };
  if (BPS_SCALE - BigInt(slippageBps) <= 0n || swap.amountOut <= 0n || swap.amountIn <= 0n) {
    return { refused: 'no-swap-output' };
  }
  const before = healthOf(position, position.positions);
  if (before === null) return { refused: 'no-debt' };
  if (before >= target) return { refused: 'target-reached', healthFactor: before };

  const aim = target + divCeil(target, TARGET_MARGIN_DIVISOR);
  const step = (loan: bigint) => partialStep(position, sold, debt, swap, slippageBps, loan);
  // The sale may not ask for more collateral than is held; past the whole debt, more sale changes nothing.
  const collateralBound = (sold.collateral * BPS_SCALE) / (BPS_SCALE + BigInt(slippageBps)) - 2n;
  const wholeDebt =
    divCeil((debt.debt + 2n) * BPS_SCALE * swap.amountIn, (BPS_SCALE - BigInt(slippageBps)) * swap.amountOut) + 2n;
  const high = collateralBound < wholeDebt ? collateralBound : wholeDebt;
  if (high < 1n || !reaches(step(high).health, aim)) return { refused: 'target-unreachable', asset: swap.tokenIn };
  // The health factor rises with the sale (while it is above ~0.7, far below any position the pool lets exist).
  let low = 1n;
  let top = high;
  while (low < top) {
    const middle = (low + top) / 2n;
    if (reaches(step(middle).health, aim)) top = middle;
    else low = middle + 1n;
  }
  const chosen = step(low);
  // Selling collateral lowers it: at the target, with debt left, the pool may find it under its minimum.
  if (!meetsMinCollateral(position, chosen.positions)) {
    return {
      refused: 'min-collateral',
      collateralLeft: collateralBaseOf(position, chosen.positions),
      minCollateral: position.minCollateral ?? 0n,
    };
  }
  const pulls = new Map([[swap.tokenOut, chosen.pull]]);
  if (balanceOf(funds, swap.tokenOut) + chosen.swapMinimum < chosen.pull) {
    return { refused: 'wallet-short', asset: swap.tokenOut };
  }
  return {
    route: 'flash-loan',
    requests: chosen.requests,
    operations: chosen.requests.length + 1,
    pulls,
    flashLoan: { contract: receiver, asset: swap.tokenIn, amount: low },
    swapMinimum: chosen.swapMinimum,
    debtAsset: swap.tokenOut,
  };
}

/** The health factor (7 decimals, null without debt) of `positions` at the position's prices. */
export function healthOf(position: UnwindPosition, positions: Positions): bigint | null {
  return healthFactor(
    positionData(position.reserves, positions, priceReader(position.prices), position.prices.decimals),
  );
}

/**
 * Whether `positions` pass the pool's minimum collateral (`validate_submit`): true without debt or without a
 * minimum, else the effective collateral in the oracle's base units is at least `minCollateral`.
 */
export function meetsMinCollateral(position: UnwindPosition, positions: Positions): boolean {
  const minimum = position.minCollateral ?? 0n;
  if (minimum <= 0n) return true;
  const data = positionData(position.reserves, positions, priceReader(position.prices), position.prices.decimals);
  return data.liabilityBase === 0n || data.collateralBase >= minimum;
}

/** The effective collateral of `positions` in the oracle's base units (what `min_collateral` is compared with). */
export function collateralBaseOf(position: UnwindPosition, positions: Positions): bigint {
  return positionData(position.reserves, positions, priceReader(position.prices), position.prices.decimals)
    .collateralBase;
}

/** The margin a partial unwind aims above its target: one basis point (target / 10,000). */
const TARGET_MARGIN_DIVISOR = 10_000n;

const reaches = (health: bigint | null, target: bigint): boolean => health === null || health >= target;

/** The least a sale of `amountIn` pays after slippage, one unit under the linear quote to absorb its rounding. */
function saleMinimum(swap: SwapQuote, amountIn: bigint, slippageBps: number): bigint {
  const quoted = (amountIn * swap.amountOut) / swap.amountIn;
  return positive((quoted * (BPS_SCALE - BigInt(slippageBps))) / BPS_SCALE - 1n);
}

interface PartialStep {
  readonly requests: Request[];
  readonly positions: Positions;
  readonly health: bigint | null;
  readonly pull: bigint;
  readonly swapMinimum: bigint;
}

/** The requests and resulting position of selling `loan` of the collateral, as the pool would account for them. */
function partialStep(
  position: UnwindPosition,
  sold: Holding,
  debt: Holding,
  swap: SwapQuote,
  slippageBps: number,
  loan: bigint,
): PartialStep {
  const minted = toDTokenUp(sold.reserve, loan);
  // Repaying the loan's exact dTokens, padded for the interest that accrues until inclusion; the excess comes back.
  const loanRepayment = withSlippage(toAssetFromDToken(sold.reserve, minted), slippageBps) + 1n;
  const swapMinimum = saleMinimum(swap, loan, slippageBps);
  const repaysAll = swapMinimum >= debt.debt;
  const debtRepayment = repaysAll ? withSlippage(debt.debt, slippageBps) : swapMinimum;

  const liabilities = new Map(position.positions.liabilities);
  const collateral = new Map(position.positions.collateral);
  const soldLiability = (liabilities.get(sold.index) ?? 0n) + minted;
  const soldLeft = soldLiability - toDTokenDown(sold.reserve, loanRepayment);
  setOrDelete(liabilities, sold.index, soldLeft);
  const heldB = collateral.get(sold.index) ?? 0n;
  const burned = toBTokenUp(sold.reserve, loanRepayment);
  setOrDelete(collateral, sold.index, heldB - (burned > heldB ? heldB : burned));
  const owedD = liabilities.get(debt.index) ?? 0n;
  const repaidD = repaysAll ? owedD : toDTokenDown(debt.reserve, debtRepayment);
  setOrDelete(liabilities, debt.index, owedD - (repaidD > owedD ? owedD : repaidD));

  const positions = { liabilities, collateral, supply: position.positions.supply };
  return {
    requests: [
      { requestType: REQUEST_TYPES.Repay, address: debt.reserve.asset, amount: debtRepayment },
      { requestType: REQUEST_TYPES.WithdrawCollateral, address: sold.reserve.asset, amount: loanRepayment },
      { requestType: REQUEST_TYPES.Repay, address: sold.reserve.asset, amount: loanRepayment },
    ],
    positions,
    health: healthOf(position, positions),
    pull: repaysAll ? withSlippage(positive(debt.debt - debt.collateral), slippageBps) : debtRepayment,
    swapMinimum,
  };
}

function setOrDelete(map: Map<number, bigint>, index: number, value: bigint): void {
  if (value > 0n) map.set(index, value);
  else map.delete(index);
}

/** Repay every debt (plus `borrowed`, a flash loan repaid in the same call) and withdraw every collateral. */
function fullUnwindRequests(
  holdings: ReadonlyMap<string, Holding>,
  borrowed: ReadonlyMap<string, bigint>,
  slippageBps: number,
): Request[] {
  const repays: Request[] = [];
  const withdrawals: Request[] = [];
  for (const [asset, holding] of holdings) {
    const owed = holding.debt + (borrowed.get(asset) ?? 0n);
    if (owed > 0n) {
      repays.push({ requestType: REQUEST_TYPES.Repay, address: asset, amount: withSlippage(owed, slippageBps) });
    }
    if (holding.collateral > 0n) {
      withdrawals.push({
        requestType: REQUEST_TYPES.WithdrawCollateral,
        address: asset,
        amount: withSlippage(holding.collateral, slippageBps),
      });
    }
  }
  return [...repays, ...withdrawals];
}

/** Per token, what settlement nets against the wallet when repaying everything and withdrawing everything. */
function nettedPulls(
  holdings: ReadonlyMap<string, Holding>,
  borrowed: ReadonlyMap<string, bigint>,
  slippageBps: number,
): Map<string, bigint> {
  const pulls = new Map<string, bigint>();
  for (const [asset, holding] of holdings) {
    const owed = holding.debt + (borrowed.get(asset) ?? 0n) - holding.collateral;
    if (owed > 0n) pulls.set(asset, withSlippage(owed, slippageBps));
  }
  return pulls;
}

function largestDebtAsset(position: UnwindPosition, holdings: ReadonlyMap<string, Holding>): string | undefined {
  const price = priceReader(position.prices);
  let best: { asset: string; value: bigint } | undefined;
  for (const [asset, holding] of holdings) {
    if (holding.debt === 0n) continue;
    const value = (holding.debt * price(asset)) / holding.reserve.scalar;
    if (!best || value > best.value) best = { asset, value };
  }
  return best?.asset;
}

/**
 * Collateral assets that could be sold to repay `debtAsset`, most valuable first (the debt token itself excluded).
 * The caller asks the receiver which of them it has a route for.
 */
export function saleCandidates(position: UnwindPosition, debtAsset: string): string[] {
  const holdings = holdingsOf(position);
  const price = priceReader(position.prices);
  return [...holdings.entries()]
    .filter(([asset, holding]) => asset !== debtAsset && holding.collateral > 0n)
    .map(([asset, holding]) => ({ asset, value: (holding.collateral * price(asset)) / holding.reserve.scalar }))
    .sort((a, b) => (a.value === b.value ? 0 : a.value > b.value ? -1 : 1))
    .map(({ asset }) => asset);
}

/** The debt a partial unwind works on: the largest by value. `undefined` without debt. */
export function principalDebt(position: UnwindPosition): string | undefined {
  return largestDebtAsset(position, holdingsOf(position));
}

/** The collateral and debt (underlying) of one asset of the position, for the caller's checks. */
export function holdingOf(position: UnwindPosition, asset: string): { collateral: bigint; debt: bigint } | undefined {
  const holding = holdingsOf(position).get(asset);
  return holding && { collateral: holding.collateral, debt: holding.debt };
}
