import type { RaisedTrigger } from './pool-triggers';

/**
 * `liquidation_auction` (critical) when a user liquidation auction against the position's user exists in the pool
 * (Blend v2 `Auction(AuctionKey{user, 0})`): its lot ramps up every ledger until a liquidator fills it, and only the
 * user's own repayment plus request 9 (`DeleteLiquidationAuction`) in one submit stops it.
 */
export function auctionTriggers(liquidationAuction: boolean | undefined): RaisedTrigger[] {
  return liquidationAuction ? [{ trigger: 'liquidation_auction', minimumLevel: 'critical' }] : [];
}
