/**
 * Issue 19 §5: a liquidation auction is started against an agent-protected wallet; the agent sends the RESCUE (just
 * enough repaid, then DeleteLiquidationAuction) through txb the poll it sees the auction, the signing rule passes it
 * (the ledger shows the auction), and it lands before any fill: the auction is gone and the wallet keeps every bToken
 * of its collateral. A liquidator's fill sent while the rescue waits for the same ledger fails there (or is refused
 * at once when the auction is already gone). Real processes: agent (service mode: its risk from the notifications
 * service's risk route, whose answer carries the `liquidation_auction` trigger), subscription, txb, notifications,
 * gateway; a ledger a second.
 */
import { type Stack, startStack } from '@rp/dev';
import { blendScVal, decodePositions } from '@rp/ledger';
import { UNIT } from '@rp/sandbox';
import { type AgentCalls, agentCalls, agentStack } from './support/agents';
import { type AuctionCalls, auctionCalls } from './support/auctions';

/** $0.26: 10,000 XLM x 0.75 against 1,900 USDC / 0.95, health factor 0.975: an auction may start. */
const UNDERWATER_XLM_PRICE = 2_600_000n;
const DEMO_XLM_PRICE = 3_000_000n;
const XLM_RESERVE = 1;

describe('the risk agent rescues its wallet from a liquidation auction', () => {
  let stack: Stack;
  let agents: AgentCalls;
  let auctions: AuctionCalls;

  beforeAll(async () => {
    stack = await startStack(agentStack({ redisDb: 12, ledgerIntervalMs: 1000, notifications: true }));
    agents = agentCalls(stack);
    auctions = auctionCalls(stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  });

  afterEach(() => agents.setXlmPrice(DEMO_XLM_PRICE));

  const collateralOf = (wallet: string) =>
    decodePositions(stack.sandbox.ledger.view(stack.scenario.pool, 'get_positions', [blendScVal.scAddress(wallet)]))
      .collateral.get(XLM_RESERVE);

  it('the rescue lands before any fill: the auction is gone, the wallet keeps its collateral, the fill fails; a second auction is rescued too', async () => {
    // The wallet keeps the 1,900 USDC it borrowed: enough to repay its way back to health.
    const owner = agents.borrower({ xlm: 10_000n * UNIT, usdc: 1_900n * UNIT, usdcForKey: 1n * UNIT });
    // Polls slower than ledgers: the price drop below lands with the auction before the agent's next poll (seen
    // alone, a position under 1.0 is closed at once, as it should be).
    const agent = await agents.start(owner, { POLL_INTERVAL_MS: '3000' });
    const ready = await agents.until(
      agent,
      (s) => s.mode === 'service' && s.positions.length === 1,
      'service mode (the risk route) and the position',
      90_000,
    );
    expect(ready.positions[0]).toMatchObject({ riskLevel: 'high' });
    const collateral = collateralOf(owner.address);

    // Right after a poll: under 1.0 and, in the same instant, the sandbox's liquidator sends new_auction for the
    // next ledger (within a second), before the agent's next poll.
    await agents.until(agent, (s) => s.lastPollAt !== ready.lastPollAt, 'the next poll');
    agents.setXlmPrice(UNDERWATER_XLM_PRICE);
    const started = auctions.start(owner.address);
    expect(started.status).toBe('PENDING');
    const auction = await auctions.until(owner.address, true);
    expect(auction).toBeDefined();

    // The agent's rescue is on its way: a liquidator fills into the same ledger.
    const sentLine = await until(() => agent.lines.find((line) => line.includes('close sent')));
    let fillHash: string | undefined;
    let fillRefused: string | undefined;
    try {
      fillHash = auctions.fill(owner.address, 100).hash;
    } catch (error) {
      fillRefused = (error as Error).message;
    }

    const status = await agents.until(agent, (s) => s.recentCloses.some((c) => c.outcome === 'confirmed'), 'a confirmed rescue');
    const rescue = status.recentCloses.find((c) => c.outcome === 'confirmed')!;
    expect(rescue.riskSnapshot).toMatchObject({ source: 'service', positions: [expect.objectContaining({ auction: true })] });
    expect(JSON.parse(sentLine)).toMatchObject({ builtBy: 'service' });
    const landed = await stack.ledger.getTransaction(rescue.txHash ?? '');
    expect(landed.status).toBe('SUCCESS');
    expect(await auctions.current(owner.address)).toBeUndefined();
    // Every bToken of collateral is still the wallet's; the health factor is back at the critical bound.
    expect(collateralOf(owner.address)).toBe(collateral);
    const after = await agents.position(owner.address);
    expect(after.healthFactor).toBeGreaterThanOrEqual(1.1);
    expect(after.healthFactor).toBeLessThan(1.2);

    if (fillHash) {
      const fill = await until(async () => {
        const answer = await stack.ledger.getTransaction(fillHash!);
        return answer.status === 'NOT_FOUND' ? undefined : answer;
      });
      expect(fill.status).toBe('FAILED');
      if (landed.status === 'SUCCESS' && fill.status === 'FAILED') expect(fill.ledger).toBeGreaterThanOrEqual(landed.ledger);
    } else {
      expect(fillRefused).toMatch(/auction|1200|BadRequest|WasmVm/i);
    }
    expect(status.refusals).toEqual([]);
    // The rescue went out the ledger the auction appeared or the next: within two ledgers of it.
    if (landed.status === 'SUCCESS') expect(landed.ledger - auction!.block).toBeLessThanOrEqual(3);

    // A new auction minutes later, inside the close cooldown (300 s): rescued again, not held back by it.
    const rescued = await agents.status(agent);
    await agents.until(agent, (s) => s.lastPollAt !== rescued.lastPollAt, 'the next poll');
    agents.setXlmPrice((UNDERWATER_XLM_PRICE * 88n) / 100n);
    auctions.start(owner.address);
    await auctions.until(owner.address, true);
    const again = await agents.until(
      agent,
      (s) => s.recentCloses.filter((c) => c.outcome === 'confirmed').length === 2,
      'a second confirmed rescue',
    );
    expect(again.recentCloses[0].riskSnapshot.positions).toEqual([expect.objectContaining({ auction: true })]);
    expect(await auctions.current(owner.address)).toBeUndefined();
    expect(collateralOf(owner.address)).toBe(collateral);
  }, 240_000);
});

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error('never happened');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
