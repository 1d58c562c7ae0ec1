import { Injectable } from '@nestjs/common';
import type { BuildTransactionRequest } from '@rp/contracts';
import {
  TokenClient,
  type UnwindPlan,
  type UnwindPosition,
  type UnwindRouteRefusal,
  isUnwindRouteRefusal,
  missingApproval,
  routeUnwind,
  unwindOperation,
  withAuctionDeleted,
} from '@rp/ledger';
import { TxbConfig } from '../config/txb.config';
import { TxbLedger } from '../ledger/txb-ledger';
import { type PositionSnapshot, PositionReader } from '../positions/position.reader';
import { type ActionPlan, type BuildRefusal, baseValue } from './build-outcome';
import { healthFactorNumber } from './preview';

/** Ledgers of a 5 s close: an approval outlives the approval proposal and the unwind built after it. */
const SECONDS_PER_LEDGER = 5;

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
      minCollateral: snapshot.pool.config.minCollateral,
    };
    const preferred = request.tokenId;
    const routed = await routeUnwind(
      position,
      { balances: snapshot.balances },
      {
        slippageBps,
        preferred,
        targetHealthFactor: request.targetHealthFactor,
        receiver: this.ledger.receiver(),
      },
    );
    if (isUnwindRouteRefusal(routed)) return refusalOf(routed, request.poolAddress, snapshot.prices.decimals);
    // During a liquidation auction the close deletes it too, or the pool refuses it (ADR 027).
    const plan = withAuctionDeleted(routed, request.walletAddress, snapshot.auction);

    const approval = await this.missingApproval(request, plan, slippageBps);
    if (approval) return approval;
    return {
      operation: unwindOperation(request.poolAddress, request.walletAddress, plan),
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

  /** The approval the wallet lacks for what settlement will pull, as the plan to build instead; else undefined. */
  private async missingApproval(
    request: BuildTransactionRequest,
    plan: UnwindPlan,
    slippageBps: number,
  ): Promise<ActionPlan | undefined> {
    const tokens = [...plan.pulls.keys()];
    if (tokens.length === 0) return undefined;
    const allowances = await this.reader.allowances(request.walletAddress, request.poolAddress, tokens);
    const missing = missingApproval(plan, allowances, slippageBps);
    if (!missing) return undefined;
    const { token, amount } = missing;
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
}

/** `metadata.tokenId` and `amount` of an UNWIND: the token asked for, else the debt it repays, else a collateral. */
function headline(plan: UnwindPlan, preferred: string | undefined): { tokenId: string; amount: string } {
  const tokenId = preferred ?? plan.debtAsset ?? plan.requests[0]?.address ?? '';
  const amount = plan.requests
    .filter((request) => request.address === tokenId)
    .reduce((largest, request) => (request.amount > largest ? request.amount : largest), 0n);
  return { tokenId, amount: amount.toString() };
}

function refusalOf(refusal: UnwindRouteRefusal, pool: string, oracleDecimals: number): BuildRefusal {
  switch (refusal.refused) {
    case 'receiver-missing':
      return { code: 'RECEIVER_NOT_CONFIGURED' };
    case 'not-possible':
      return { code: 'UNWIND_NOT_POSSIBLE', detail: refusal.detail };
    case 'token-not-held':
      return { code: 'NO_POSITION_FOUND', pool, token: refusal.token };
    case 'token-not-collateral':
      return { code: 'NO_COLLATERAL_TO_LIQUIDATE', token: refusal.token };
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
    case 'min-collateral':
      return {
        code: 'UNWIND_NOT_POSSIBLE',
        detail:
          `at the target the position keeps debt with ${baseValue(refusal.collateralLeft, oracleDecimals)} of ` +
          `collateral value, under the pool's minimum of ${baseValue(refusal.minCollateral, oracleDecimals)}: ` +
          'unwind fully (no targetHealthFactor)',
      };
  }
}
