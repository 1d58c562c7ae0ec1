import type { Stack } from '@rp/dev';
import { type AuctionData, loadUserAuctions } from '@rp/ledger';
import type { AuctionStarted, LiquidatorSubmission } from '@rp/sandbox';

/** Liquidation auctions in the demo pool, as the e2e suites cause and watch them. */
export interface AuctionCalls {
  /**
   * The sandbox's liquidator sends `new_auction` against the wallet (every asset it owes as the bid, every collateral
   * as the lot; without `percent`, the largest the pool accepts): a transaction that lands in the next ledger. The
   * wallet's health factor must be below 1.0 (a 400-like error otherwise).
   */
  start(user: string, percent?: number): AuctionStarted;
  /** The liquidator's fill (request 6) of `percent` (100) of the wallet's auction, sent now for the next ledger. */
  fill(user: string, percent?: number): LiquidatorSubmission;
  /** The wallet's auction as the RPC answers now, or undefined. */
  current(user: string): Promise<AuctionData | undefined>;
  /** Polls until the wallet's auction exists (`present`) or is gone; answers the last one read. */
  until(user: string, present: boolean, timeoutMs?: number): Promise<AuctionData | undefined>;
}

export function auctionCalls(stack: Stack): AuctionCalls {
  const pool = stack.scenario.pool;
  const { liquidator } = stack.sandbox.control;
  const calls: AuctionCalls = {
    start: (user, percent) => liquidator.startAuction(pool, user, percent),
    fill: (user, percent = 100) => liquidator.fill(pool, user, percent),
    async current(user) {
      return (await loadUserAuctions(stack.ledger, [{ pool, user }])).get(pool)?.get(user);
    },
    async until(user, present, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const auction = await calls.current(user);
        if ((auction !== undefined) === present) return auction;
        if (Date.now() > deadline)
          throw new Error(`the auction against ${user} never ${present ? 'appeared' : 'went'}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
  };
  return calls;
}
