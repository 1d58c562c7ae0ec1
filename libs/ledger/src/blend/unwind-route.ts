import type { xdr } from '@stellar/stellar-sdk';
import { SimulationFailedError } from '../transactions/simulate';
import { poolFlashLoanOperation, poolSubmitOperation, poolSubmitWithAllowanceOperation } from './pool-operations';
import { BPS_SCALE } from './position-requests';
import type { SwapReceiverClient } from './swap-receiver-client';
import {
  type SwapQuote,
  type UnwindFunds,
  type UnwindPlan,
  type UnwindPosition,
  type UnwindRefusal,
  holdingOf,
  isRefusal,
  planPartialUnwind,
  planUnwindFromWallet,
  planUnwindWithSwap,
  principalDebt,
  saleCandidates,
} from './unwind-planner';

/**
 * UNWIND's route, with the receiver's answers (docs/adr/010-unwind-construction.md): the planner decides without
 * I/O; this asks the receiver which collateral it sells for the debt and at what quote. txb's builder and the
 * agent's own builder (degraded mode) both plan through it.
 */
export interface UnwindRouteRequest {
  readonly slippageBps: number;
  /** The collateral to sell, when the caller names one. */
  readonly preferred?: string;
  /** A partial unwind to this health factor (a number, e.g. 1.3) instead of a full close. */
  readonly targetHealthFactor?: number;
  /** The flash-loan receiver; `undefined` when none is configured. */
  readonly receiver?: SwapReceiverClient;
}

/** Refusals beyond the planner's: no receiver, none that sells the collateral, the token named holds nothing. */
export type UnwindRouteRefusal =
  | UnwindRefusal
  | { readonly refused: 'receiver-missing' }
  | { readonly refused: 'not-possible'; readonly detail: string }
  | { readonly refused: 'token-not-held'; readonly token: string }
  | { readonly refused: 'token-not-collateral'; readonly token: string };

export async function routeUnwind(
  position: UnwindPosition,
  funds: UnwindFunds,
  request: UnwindRouteRequest,
): Promise<UnwindPlan | UnwindRouteRefusal> {
  const { preferred, slippageBps } = request;
  if (preferred !== undefined) {
    const holding = holdingOf(position, preferred);
    if (!holding) return { refused: 'token-not-held', token: preferred };
    if (holding.collateral === 0n) return { refused: 'token-not-collateral', token: preferred };
  }
  const receiverId = request.receiver?.contractId ?? '';
  if (request.targetHealthFactor !== undefined) {
    const debt = principalDebt(position);
    if (!debt) return { refused: 'no-debt' };
    const swap = await findSwap(position, debt, request);
    if ('refused' in swap) return swap;
    const target = BigInt(Math.round(request.targetHealthFactor * 1e7));
    return planPartialUnwind(position, funds, slippageBps, swap, receiverId, target);
  }
  const fromWallet = planUnwindFromWallet(position, funds, slippageBps);
  if (!('needsSwap' in fromWallet)) return fromWallet;
  if (fromWallet.needsSwap.length > 1) {
    return {
      refused: 'not-possible',
      detail: `the wallet cannot repay ${fromWallet.needsSwap.join(', ')}; one flash loan can cover one of them`,
    };
  }
  const swap = await findSwap(position, fromWallet.needsSwap[0], request);
  if ('refused' in swap) return swap;
  return planUnwindWithSwap(position, funds, slippageBps, swap, receiverId);
}

export const isUnwindRouteRefusal = (value: UnwindPlan | UnwindRouteRefusal): value is UnwindRouteRefusal =>
  isRefusal(value);

/** The receiver's sale of a collateral (the one asked for, else the most valuable it has a route for) into `debt`. */
async function findSwap(
  position: UnwindPosition,
  debt: string,
  request: UnwindRouteRequest,
): Promise<SwapQuote | UnwindRouteRefusal> {
  const { receiver, preferred } = request;
  if (!receiver) return { refused: 'receiver-missing' };
  const candidates = preferred !== undefined ? [preferred] : saleCandidates(position, debt);
  try {
    const routes = await Promise.all(candidates.map((candidate) => receiver.route(candidate)));
    const tokenIn = candidates.find((_candidate, i) => routes[i] === debt);
    if (tokenIn === undefined) {
      return {
        refused: 'not-possible',
        detail: `the unwind receiver sells none of ${candidates.join(', ') || 'the collateral'} for ${debt}`,
      };
    }
    // Quoted at the whole collateral: for a receiver whose price worsens with size, smaller sales only do better.
    const amountIn = holdingOf(position, tokenIn)?.collateral ?? 0n;
    return { tokenIn, tokenOut: debt, amountIn, amountOut: await receiver.quote(tokenIn, amountIn) };
  } catch (error) {
    if (!(error instanceof SimulationFailedError)) throw error;
    return { refused: 'not-possible', detail: `the unwind receiver could not be read: ${error.message}` };
  }
}

/** The pool invocation of a plan. */
export function unwindOperation(pool: string, wallet: string, plan: UnwindPlan): xdr.Operation {
  if (plan.route === 'submit') return poolSubmitOperation(pool, wallet, plan.requests);
  if (plan.route === 'submit-with-allowance') return poolSubmitWithAllowanceOperation(pool, wallet, plan.requests);
  if (!plan.flashLoan) throw new Error('a flash-loan plan without its loan');
  return poolFlashLoanOperation(pool, wallet, plan.flashLoan, plan.requests);
}

/** An approval covers the pull plus this much more than the slippage, for interest until the unwind lands. */
export const APPROVAL_MARGIN_BPS = 100;

/**
 * The first token settlement would pull with `transfer_from` beyond what the wallet has approved the pool for, with
 * the amount to approve (the pull plus slippage plus `APPROVAL_MARGIN_BPS`); `undefined` when every pull is covered.
 */
export function missingApproval(
  plan: UnwindPlan,
  allowances: ReadonlyMap<string, bigint>,
  slippageBps: number,
): { token: string; amount: bigint } | undefined {
  const token = [...plan.pulls.keys()].find(
    (candidate) => (allowances.get(candidate) ?? 0n) < (plan.pulls.get(candidate) ?? 0n),
  );
  if (token === undefined) return undefined;
  const pull = plan.pulls.get(token) ?? 0n;
  return { token, amount: pull + (pull * BigInt(slippageBps + APPROVAL_MARGIN_BPS)) / BPS_SCALE };
}
