/**
 * A liquidation auction against a watched wallet, started by the sandbox's liquidator with a real transaction: the
 * monitor alerts `critical` with `liquidation_auction` in the round of the ledger it appears, inside the cooldown of
 * an earlier critical alert, and again for a new auction even when the last alert already named one.
 */
import { REQUEST_TYPES, blendScVal, encodeRequest } from '@rp/ledger';
import { UNIT } from '@rp/sandbox';
import { type MonitorHarness, startMonitorHarness } from '../../test/monitor.int-support';
import { RiskEvaluator } from '../risk/risk-evaluator';
import type { MonitorScheduler } from './monitor-scheduler';

describe('liquidation auctions seen by the monitor', () => {
  let h: MonitorHarness;
  let scheduler: MonitorScheduler;
  let wallet: string;

  const setXlmPrice = (price: bigint) => h.sandbox.control.setup.setPrice(h.scenario.oracle, h.scenario.xlm, price);
  /** Closes a ledger and runs the round it starts. */
  async function round() {
    h.sandbox.ledger.closeLedger();
    const report = await scheduler.tick();
    expect(report?.outcome).toBe('completed');
  }
  async function mails(count: number) {
    const until = Date.now() + 30_000;
    let list = h.sandbox.channels.log.list({ channel: 'email' });
    while (list.length < count && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      list = h.sandbox.channels.log.list({ channel: 'email' });
    }
    expect(list).toHaveLength(count);
    return list.map((mail) => JSON.stringify(mail));
  }
  const submitAsWallet = (requests: { requestType: number; address: string; amount: bigint }[]) => {
    const user = blendScVal.scAddress(wallet);
    h.sandbox.ledger.invokePrivileged(h.scenario.pool, 'submit', [
      user,
      user,
      user,
      blendScVal.scVec(requests.map(encodeRequest)),
    ]);
  };

  beforeAll(async () => {
    h = await startMonitorHarness();
    [wallet] = h.sandbox.control.setup.newAddresses(1);
    // 1000 XLM x 0.75 x $0.30 = 225 against 200 / 0.95: health factor 1.069, critical.
    h.sandbox.control.setup.openPosition(h.scenario.pool, {
      user: wallet,
      supplyCollateral: [{ asset: h.scenario.xlm, amount: 1000n * UNIT }],
      borrow: [{ asset: h.scenario.usdc, amount: 200n * UNIT }],
    });
    await h.watch([wallet], 'high');
    scheduler = h.scheduler();
  }, 120_000);

  afterAll(() => h?.close());

  it('alerts critical liquidation_auction in the round the auction appears, inside the cooldown', async () => {
    await round();
    const [first] = await mails(1);
    expect(first).toMatch(/critical/i);
    expect(first).not.toMatch(/liquidation auction/);

    // Under 1.0 (XLM $0.27: 202.5 against 210.5): still critical, inside the cooldown, nothing new: held back.
    setXlmPrice(2_700_000n);
    await round();
    h.sandbox.control.liquidator.startAuction(h.scenario.pool, wallet);
    await round(); // the ledger the auction lands in
    const sent = await mails(2);
    expect(sent[1]).toMatch(/liquidation auction has started/);
    expect(sent[1]).toContain('RESCUE: repay');

    // The risk answer's evaluation reads the Auction entry too.
    const { positions } = await h.app.get(RiskEvaluator, { strict: false }).evaluate([wallet]);
    expect(positions[0].risk).toMatchObject({
      riskLevel: 'critical',
      triggers: ['low_health_factor', 'liquidation_auction'],
    });

    // The auction stands on: its trigger was sent, so the cooldown holds the next rounds back.
    await round();
    expect(await h.metric('rms_monitor_alerts_total', { level: 'critical' })).toBeGreaterThanOrEqual(4);
  });

  it('bypasses the cooldown for a new auction even when the last alert already named one', async () => {
    // The wallet rescues itself: repay 100 USDC and delete the auction in one submit.
    submitAsWallet([
      { requestType: REQUEST_TYPES.Repay, address: h.scenario.usdc, amount: 100n * UNIT },
      { requestType: REQUEST_TYPES.DeleteLiquidationAuction, address: wallet, amount: 0n },
    ]);
    await round();
    // Back under 1.0 and a second auction, well inside the 120 s cooldown of the alert that named the first.
    setXlmPrice(3_000_000n);
    submitAsWallet([{ requestType: REQUEST_TYPES.Borrow, address: h.scenario.usdc, amount: 100n * UNIT }]);
    setXlmPrice(2_700_000n);
    await round();
    h.sandbox.control.liquidator.startAuction(h.scenario.pool, wallet);
    await round();
    const sent = await mails(3);
    expect(sent[2]).toMatch(/liquidation auction has started/);
  });
});
