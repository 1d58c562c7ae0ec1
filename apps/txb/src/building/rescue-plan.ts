import {
  type BuildTransactionRequest,
  DEFAULT_RISK_BOUNDS,
  HEALTH_FACTOR_SCALE,
  type RescueMetadata,
} from '@rp/contracts';
import {
  REQUEST_TYPES,
  type RescueRefusal,
  isRescueRefusal,
  planRescue,
  poolSubmitOperation,
  principalDebt,
} from '@rp/ledger';
import type { PositionSnapshot } from '../positions/position.reader';
import { type ActionPlan, type BuildRefusal, baseValue } from './build-outcome';

/**
 * The health factor a RESCUE brings the position to when the request names none: the default critical bound (1.10).
 * Just above 1.0 the next price tick starts another auction; at the critical bound the position is out of the
 * agent's acting band and has the same room the owner chose for "act now" (docs/adr/027-auction-rescue.md).
 */
export const DEFAULT_RESCUE_TARGET = Number(DEFAULT_RISK_BOUNDS.critical) / Number(HEALTH_FACTOR_SCALE);

/**
 * RESCUE: one `submit` paying in (repay, else collateral) just enough to reach the target, then
 * DeleteLiquidationAuction (request 9). 404 AUCTION_NOT_FOUND without an auction against the wallet; 422
 * RESCUE_NOT_POSSIBLE when the pool refuses request 9 (not active) or the wallet's funds cannot reach the target, or
 * the pool's minimum collateral with debt left.
 */
export function planRescueAction(
  request: BuildTransactionRequest,
  snapshot: PositionSnapshot,
  slippageBps: number,
): ActionPlan | BuildRefusal {
  if (!snapshot.auction) return { code: 'AUCTION_NOT_FOUND', wallet: request.walletAddress, pool: request.poolAddress };
  const targetHealthFactor = request.targetHealthFactor ?? DEFAULT_RESCUE_TARGET;
  const position = {
    reserves: snapshot.pool.reserves,
    positions: snapshot.positions,
    prices: snapshot.prices,
    minCollateral: snapshot.pool.config.minCollateral,
  };
  const plan = planRescue(
    position,
    { balances: snapshot.balances },
    {
      wallet: request.walletAddress,
      slippageBps,
      target: BigInt(Math.round(targetHealthFactor * Number(HEALTH_FACTOR_SCALE))),
      poolStatus: snapshot.pool.config.status,
      ...(request.tokenId !== undefined && { token: request.tokenId }),
    },
  );
  if (isRescueRefusal(plan)) {
    return {
      code: 'RESCUE_NOT_POSSIBLE',
      detail: refusalDetail(plan, targetHealthFactor, snapshot.prices.decimals),
    };
  }
  const rescue: RescueMetadata = {
    targetHealthFactor,
    requests: plan.levers.map((lever) => ({
      requestType: lever.requestType === REQUEST_TYPES.Repay ? 'Repay' : 'SupplyCollateral',
      tokenId: lever.asset,
      amount: lever.amount.toString(),
    })),
  };
  const first = rescue.requests[0];
  return {
    operation: poolSubmitOperation(request.poolAddress, request.walletAddress, plan.requests),
    operations: plan.requests.length,
    metadata: {
      poolAddress: request.poolAddress,
      tokenId: first?.tokenId ?? principalDebt(position) ?? request.poolAddress,
      amount: first?.amount ?? '0',
      action: 'RESCUE',
      rescue,
    },
    changesPosition: true,
  };
}

function refusalDetail(refusal: RescueRefusal, targetHealthFactor: number, oracleDecimals: number): string {
  switch (refusal.refused) {
    case 'pool-status':
      return `the pool's status ${refusal.status} refuses DeleteLiquidationAuction (only an active pool, 0 or 1, allows it)`;
    case 'not-enough-funds':
      return `what the wallet holds brings the health factor to ${health(refusal.healthReachable)} at most, short of ${targetHealthFactor}`;
    case 'min-collateral':
      return (
        `the pool requires ${baseValue(refusal.minCollateral, oracleDecimals)} of collateral value from a position with debt; what the ` +
        `wallet holds reaches ${baseValue(refusal.collateralReachable, oracleDecimals)} without repaying every debt`
      );
  }
}

const health = (value: bigint | null): string =>
  value === null ? 'no debt' : (Number(value) / Number(HEALTH_FACTOR_SCALE)).toFixed(4);
