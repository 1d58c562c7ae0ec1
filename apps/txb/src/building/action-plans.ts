import type { BuildTransactionRequest } from '@rp/contracts';
import {
  type PositionSummary,
  poolSubmitOperation,
  repayRequest,
  withSlippage,
  withdrawCollateralRequest,
} from '@rp/ledger';
import type { ActionPlan, BuildRefusal } from './build-outcome';

/**
 * REPAY and LIQUIDATE: one request on one reserve of the wallet's position, in a `submit` where the wallet is
 * `from`, `spender` and `to` (DECISIONS.md, Transaction builder).
 */
export function planRepay(
  request: BuildTransactionRequest,
  summary: PositionSummary,
  slippageBps: number,
  walletBalance: bigint | undefined,
): ActionPlan | BuildRefusal {
  const token = request.tokenId as string;
  const row = summary.reserves.find((reserve) => reserve.asset === token);
  if (!row) return { code: 'NO_POSITION_FOUND', pool: request.poolAddress, token };
  if (row.liability === 0n) return { code: 'NO_DEBT_TO_REPAY', token };
  const asked = request.amount === undefined ? undefined : BigInt(request.amount);
  const planned = repayRequest(token, row.liability, asked, slippageBps, walletBalance);
  return {
    operation: poolSubmitOperation(request.poolAddress, request.walletAddress, [planned.request]),
    operations: 1,
    metadata: { poolAddress: request.poolAddress, tokenId: token, amount: planned.amount.toString(), action: 'REPAY' },
    changesPosition: true,
    ...(planned.capped && asked !== undefined && { capped: { token, asked, used: planned.amount } }),
    maxCost: { token, amount: withSlippage(planned.amount, slippageBps) },
  };
}

export function planLiquidate(
  request: BuildTransactionRequest,
  summary: PositionSummary,
  slippageBps: number,
): ActionPlan | BuildRefusal {
  const token = request.tokenId as string;
  const row = summary.reserves.find((reserve) => reserve.asset === token);
  if (!row) return { code: 'NO_POSITION_FOUND', pool: request.poolAddress, token };
  if (row.collateral === 0n) return { code: 'NO_COLLATERAL_TO_LIQUIDATE', token };
  const asked = request.amount === undefined ? undefined : BigInt(request.amount);
  const planned = withdrawCollateralRequest(token, row.collateral, asked, slippageBps);
  return {
    operation: poolSubmitOperation(request.poolAddress, request.walletAddress, [planned.request]),
    operations: 1,
    metadata: {
      poolAddress: request.poolAddress,
      tokenId: token,
      amount: planned.amount.toString(),
      action: 'LIQUIDATE',
    },
    changesPosition: true,
    ...(planned.capped && asked !== undefined && { capped: { token, asked, used: planned.amount } }),
  };
}
