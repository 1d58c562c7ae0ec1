/**
 * The e2e auction helpers on a stack's sandbox (ledgers closing on their own): the sandbox's liquidator starts an
 * auction against a borrower pushed under 1.0 with a real transaction, the RPC serves it, and a fill ends it. The
 * rescue race against an agent is issue 19 §5's e2e (txb RESCUE and the agent).
 */
import { type Stack, startStack } from '@rp/dev';
import { UNIT } from '@rp/sandbox';
import { auctionCalls } from './support/auctions';

describe('liquidation auctions on the stack (auctionCalls)', () => {
  let s: Stack;

  beforeAll(async () => {
    s = await startStack({ apps: [], ledgerIntervalMs: 500 });
  }, 120_000);
  afterAll(() => s?.close());

  it('starts an auction against a borrower under 1.0, reads it over RPC, and a fill ends it', async () => {
    const auctions = auctionCalls(s);
    // 1000 XLM x 0.75 x $0.30 = 225 against 200 / 0.95: 1.069; at $0.27, 0.962.
    const borrower = s.borrower({ xlm: 1000n * UNIT, usdc: 200n * UNIT }, 'auction e2e wallet');
    expect(() => auctions.start(borrower.address)).toThrow(/InvalidLiquidation/);
    s.sandbox.control.setup.setPrice(s.scenario.oracle, s.scenario.xlm, 2_700_000n);
    const started = auctions.start(borrower.address);
    expect(started.status).toBe('PENDING');
    const auction = await auctions.until(borrower.address, true);
    expect(auction?.bid.get(s.scenario.usdc)).toBe(BigInt(started.auction.bid[s.scenario.usdc]));
    auctions.fill(borrower.address, 100);
    await auctions.until(borrower.address, false);
  });
});
