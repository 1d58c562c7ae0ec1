/**
 * The monitor's triggers that come from the oracle and the reserves, against the sandbox's control API (real HTTP),
 * the test Redis and real BullMQ workers: a stopped oracle feed makes a healthy position `stale_oracle` (high), and
 * utilisation pushed up by a large borrow makes the borrowers' rate jump (`borrow_rate_jump`, medium) for one round
 * only, which the risk answer agrees with at that ledger.
 */
import { UNIT } from '@rp/sandbox';
import { type MonitorHarness, startMonitorHarness } from '../../test/monitor.int-support';
import { RiskEvaluator } from '../risk/risk-evaluator';
import type { MonitorScheduler } from './monitor-scheduler';

describe('monitor triggers from the oracle and the reserves', () => {
  let h: MonitorHarness;
  let scheduler: MonitorScheduler;
  let wallet: string;

  beforeAll(async () => {
    h = await startMonitorHarness({ RMS_MONITOR_BATCH_SIZE: '50' });
    // HF about 2.14 and 100 USDC owed: low on its own. Its channel wants medium and up.
    [wallet] = h.seedHealthy(1);
    await h.watch([wallet], 'medium');
    scheduler = h.scheduler();
  }, 120_000);

  afterAll(() => h?.close());

  async function control(path: string, body: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(`${h.sandbox.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  async function round() {
    h.sandbox.ledger.closeLedger();
    const report = await scheduler.tick();
    expect(report?.outcome).toBe('completed');
    return report;
  }

  async function mailContaining(text: string): Promise<string> {
    const until = Date.now() + 30_000;
    for (;;) {
      const found = h.sandbox.channels.log
        .list({ channel: 'email' })
        .map((mail) => JSON.stringify(mail))
        .find((mail) => mail.includes(text));
      if (found || Date.now() > until) return found ?? '';
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const alerts = (level: string) => h.metric('rms_monitor_alerts_total', { level });

  it('alerts stale_oracle (high) when the XLM feed stopped 10 minutes ago, and no more once it runs again', async () => {
    await round();
    expect(await alerts('high')).toBe(0);
    const { oracle, xlm } = h.scenario;
    await control(`/control/oracles/${oracle}/feed`, { running: false, asset: xlm, ageSeconds: 600 });
    await round();
    expect(await alerts('high')).toBe(1);
    const mail = await mailContaining("the pool's oracle has not updated the price of an asset you hold");
    expect(mail).toContain(wallet.slice(0, 6));
    expect(mail).toMatch(/HIGH risk/);

    // Restarted: the keeper publishes XLM again at the next close, and the position is low again.
    await control(`/control/oracles/${oracle}/feed`, { running: true, asset: xlm });
    await round();
    expect(await alerts('high')).toBe(1);
  });

  it('alerts borrow_rate_jump (medium) in the round utilisation is pushed up, and not in the next one', async () => {
    const { pool, xlm, usdc } = h.scenario;
    await round();
    const before = await alerts('medium');
    // A large borrower takes 150 000 of the pool's 1 000 000 USDC: the rate goes from about 1.0 % to about 1.9 %.
    const [whale] = h.sandbox.control.setup.newAddresses(1);
    await control('/control/accounts', { address: whale });
    await control(`/control/pools/${pool}/positions`, {
      user: whale,
      supplyCollateral: [{ asset: xlm, amount: (1_000_000n * UNIT).toString() }],
      borrow: [{ asset: usdc, amount: (150_000n * UNIT).toString() }],
    });
    const jumped = await round();
    expect(await alerts('medium')).toBe(before + 1);
    expect(await mailContaining('the borrow rate of an asset you owe jumped')).toMatch(/MEDIUM risk/);
    // The risk answer, at the ledger the monitor just evaluated, compares with the round before it, as the monitor did.
    const evaluator = h.app.get(RiskEvaluator, { strict: false });
    const now = await evaluator.evaluate([wallet]);
    expect(now.ledger).toBe(jumped?.ledger);
    expect(now.positions[0].risk).toMatchObject({ riskLevel: 'medium', triggers: ['borrow_rate_jump'] });

    // The rate stays where it jumped to: nothing new the next round, in the monitor or the risk answer.
    await round();
    expect(await alerts('medium')).toBe(before + 1);
    const next = await evaluator.evaluate([wallet]);
    expect(next.positions[0].risk).toMatchObject({ riskLevel: 'low', triggers: [] });
  });
});
