import { Injectable } from '@nestjs/common';
import type { BuildTransactionRequest } from '@rp/contracts';
import {
  BPS_SCALE,
  SimulationFailedError,
  type SwapQuote,
  TokenClient,
  type UnwindPlan,
  type UnwindPosition,
  type UnwindRefusal,
  holdingOf,
  isRefusal as isUnwindRefusal,
  planPartialUnwind,
  planUnwindFromWallet,
  planUnwindWithSwap,
  poolFlashLoanOperation,
  poolSubmitOperation,
  poolSubmitWithAllowanceOperation,
  principalDebt,
  saleCandidates,
} from '@rp/ledger';
import { TxbConfig } from '../config/txb.config';
import { TxbLedger } from '../ledger/txb-ledger';
import { type PositionSnapshot, PositionReader } from '../positions/position.reader';
import type { ActionPlan, BuildRefusal } from './build-outcome';
import { healthFactorNumber } from './preview';

/** Ledgers of a 5 s close: an approval outlives the approval proposal and the unwind built after it. */
const SECONDS_PER_LEDGER = 5;
/** An approval covers the pull plus this much more than the slippage, for interest until the unwind lands. */
const APPROVAL_MARGIN_BPS = 100;

/**
 * UNWIND: picks the route (docs/adr/010-unwind-construction.md) from the position, the wallet's balances and the
 * receiver's routes and quotes, then checks the wallet's allowances. When the pool would have to pull a token the
 * wallet has not approved enough of, the plan is that approval instead, and the caller builds UNWIND again once
 * it has landed (a Soroban transaction carries one invocation, and Blend settles flash loans with transfer_from).
 */
@Injectable()
export class UnwindRouter {
  constructor(
    private readonly config: TxbConfig,
    private readonly ledger: TxbLedger,
    private readonly reader: PositionReader,
  ) {}

  async plan(
    request: BuildTransactionRequest,
    snapshot: PositionSnapshot,
    slippageBps: number,
  ): Promise<ActionPlan | BuildRefusal> {
    const position: UnwindPosition = {
      reserves: snapshot.pool.reserves,
      positions: snapshot.positions,
      prices: snapshot.prices,
    };
    const funds = { balances: snapshot.balances };
    const preferred = request.tokenId;
    if (preferred !== undefined) {
      const holding = holdingOf(position, preferred);
      if (!holding) return { code: 'NO_POSITION_FOUND', pool: request.poolAddress, token: preferred };
      if (holding.collateral === 0n) return { code: 'NO_COLLATERAL_TO_LIQUIDATE', token: preferred };
    }

    let plan: UnwindPlan | UnwindRefusal;
    if (request.targetHealthFactor !== undefined) {
      const debt = principalDebt(position);
      if (!debt) return { code: 'NO_DEBT_TO_REPAY' };
      const swap = await this.findSwap(position, debt, preferred);
      if ('code' in swap) return swap;
      const target = BigInt(Math.round(request.targetHealthFactor * 1e7));
      plan = planPartialUnwind(position, funds, slippageBps, swap, this.receiverId(), target);
    } else {
      const fromWallet = planUnwindFromWallet(position, funds, slippageBps);
      if ('needsSwap' in fromWallet) {
        if (fromWallet.needsSwap.length > 1) {
          return {
            code: 'UNWIND_NOT_POSSIBLE',
            detail: `the wallet cannot repay ${fromWallet.needsSwap.join(', ')}; one flash loan can cover one of them`,
          };
        }
        const swap = await this.findSwap(position, fromWallet.needsSwap[0], preferred);
        if ('code' in swap) return swap;
        plan = planUnwindWithSwap(position, funds, slippageBps, swap, this.receiverId());
      } else {
        plan = fromWallet;
      }
    }
    if (isUnwindRefusal(plan)) return refusalOf(plan, request.poolAddress);

    const approval = await this.missingApproval(request, plan, slippageBps);
    if (approval) return approval;
    return {
      operation: this.operationOf(request, plan),
      operations: plan.operations,
      metadata: {
        poolAddress: request.poolAddress,
        ...headline(plan, preferred),
        action: 'UNWIND',
        route: plan.route,
      },
      changesPosition: true,
    };
  }

  /** The receiver's sale of a collateral (the one asked for, else the most valuable it has a route for) into `debt`. */
  private async findSwap(
    position: UnwindPosition,
    debt: string,
    preferred: string | undefined,
  ): Promise<SwapQuote | BuildRefusal> {
    const receiver = this.ledger.receiver();
    if (!receiver) return { code: 'RECEIVER_NOT_CONFIGURED' };
    const candidates = preferred !== undefined ? [preferred] : saleCandidates(position, debt);
    try {
      const routes = await Promise.all(candidates.map((candidate) => receiver.route(candidate)));
      const tokenIn = candidates.find((_candidate, i) => routes[i] === debt);
      if (tokenIn === undefined) {
        return {
          code: 'UNWIND_NOT_POSSIBLE',
          detail: `the unwind receiver sells none of ${candidates.join(', ') || 'the collateral'} for ${debt}`,
        };
      }
      // Quoted at the whole collateral: for a receiver whose price worsens with size, smaller sales only do better.
      const amountIn = holdingOf(position, tokenIn)?.collateral ?? 0n;
      return { tokenIn, tokenOut: debt, amountIn, amountOut: await receiver.quote(tokenIn, amountIn) };
    } catch (error) {
      if (!(error instanceof SimulationFailedError)) throw error;
      return { code: 'UNWIND_NOT_POSSIBLE', detail: `the unwind receiver could not be read: ${error.message}` };
    }
  }

  /** The approval the wallet lacks for what settlement will pull, as the plan to build instead; else undefined. */
  private async missingApproval(
    request: BuildTransactionRequest,
    plan: UnwindPlan,
    slippageBps: number,
  ): Promise<ActionPlan | undefined> {
    const tokens = [...plan.pulls.keys()];
    if (tokens.length === 0) return undefined;
    const allowances = await this.reader.allowances(request.walletAddress, request.poolAddress, tokens);
    const token = tokens.find((candidate) => (allowances.get(candidate) ?? 0n) < (plan.pulls.get(candidate) ?? 0n));
    if (token === undefined) return undefined;
    const pull = plan.pulls.get(token) ?? 0n;
    const amount = pull + (pull * BigInt(slippageBps + APPROVAL_MARGIN_BPS)) / BPS_SCALE;
    const lifetimeLedgers = Math.ceil((3 * this.config.PROPOSAL_TTL_SECONDS) / SECONDS_PER_LEDGER);
    const expirationLedger = (await this.reader.latestLedger()) + lifetimeLedgers;
    return {
      operation: new TokenClient(this.ledger.rpc(), token).approveInvocation(
        request.walletAddress,
        request.poolAddress,
        amount,
        expirationLedger,
      ),
      operations: 1,
      metadata: {
        poolAddress: request.poolAddress,
        tokenId: token,
        amount: amount.toString(),
        action: 'UNWIND',
        route: 'approve',
      },
      changesPosition: false,
      approval: { token, amount, expirationLedger },
    };
  }

  private operationOf(request: BuildTransactionRequest, plan: UnwindPlan) {
    const { poolAddress: pool, walletAddress: wallet } = request;
    if (plan.route === 'submit') return poolSubmitOperation(pool, wallet, plan.requests);
    if (plan.route === 'submit-with-allowance') return poolSubmitWithAllowanceOperation(pool, wallet, plan.requests);
    if (!plan.flashLoan) throw new Error('a flash-loan plan without its loan');
    return poolFlashLoanOperation(pool, wallet, plan.flashLoan, plan.requests);
  }

  private receiverId(): string {
    return this.config.TXB_UNWIND_RECEIVER ?? '';
  }
}

/** `metadata.tokenId` and `amount` of an UNWIND: the token asked for, else the debt it repays, else a collateral. */
function headline(plan: UnwindPlan, preferred: string | undefined): { tokenId: string; amount: string } {
  const tokenId = preferred ?? plan.debtAsset ?? plan.requests[0]?.address ?? '';
  const amount = plan.requests
    .filter((request) => request.address === tokenId)
    .reduce((largest, request) => (request.amount > largest ? request.amount : largest), 0n);
  return { tokenId, amount: amount.toString() };
}

function refusalOf(refusal: UnwindRefusal, pool: string): BuildRefusal {
  switch (refusal.refused) {
    case 'no-position':
      return { code: 'NO_POSITION_FOUND', pool };
    case 'no-debt':
      return { code: 'NO_DEBT_TO_REPAY' };
    case 'target-reached':
      return { code: 'TARGET_ALREADY_REACHED', healthFactor: healthFactorNumber(refusal.healthFactor) ?? 0 };
    case 'target-unreachable':
      return {
        code: 'UNWIND_NOT_POSSIBLE',
        detail: `selling all the ${refusal.asset} collateral does not reach the target health factor`,
      };
    case 'wallet-short':
      return {
        code: 'UNWIND_NOT_POSSIBLE',
        detail: `the wallet cannot pay its part of ${refusal.asset}, even with the sale`,
      };
    case 'no-swap-output':
      return { code: 'UNWIND_NOT_POSSIBLE', detail: 'the sale guarantees no output at this slippage' };
  }
}
