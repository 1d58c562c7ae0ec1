/**
 * The monitor records the health series: a round of 1200 watched wallets in batch jobs of 500 writes each
 * position's reading (health factor, level, triggers) with at most one write per batch job (the process's batch
 * jobs of the round together, behind the round), against the sandbox's pool and real BullMQ workers; the points
 * read back are the ones the round evaluated, and a round where nothing changed writes none (the deadband).
 */
import { UNIT } from '@rp/sandbox';
import { Registry } from 'prom-client';
import { type MonitorHarness, startMonitorHarness } from '../../test/monitor.int-support';
import { HealthHistoryRepository } from './health-history.repository';
import { ROUND_TIER } from './health-tiers';
import { HistoryRecorder } from './history-recorder';

const WALLETS = 1200;
const later = () => new Date(Date.now() + 1000);

describe('the monitor records the health series', () => {
  let h: MonitorHarness;
  let wallets: string[];
  let risky: string;

  beforeAll(async () => {
    h = await startMonitorHarness({ RMS_MONITOR_BATCH_SIZE: '500' });
    wallets = h.seedHealthy(WALLETS - 1);
    risky = h.sandbox.control.setup.newAddresses(1)[0];
    // 1000 XLM collateral against 200 USDC: a lower health factor than the others'.
    h.sandbox.control.setup.openPosition(h.scenario.pool, {
      user: risky,
      supplyCollateral: [{ asset: h.scenario.xlm, amount: 1000n * UNIT }],
      borrow: [{ asset: h.scenario.usdc, amount: 200n * UNIT }],
    });
    wallets.push(risky);
    await h.watch(wallets);
    h.sandbox.ledger.closeLedger();
  }, 120_000);
  afterAll(() => h?.close());

  /** Writes of readings so far (the histogram's count) and the readings they held. */
  async function readingWrites(): Promise<{ writes: number; readings: number }> {
    const registry = h.app.get(Registry, { strict: false });
    const writes = (await registry.getSingleMetric('notifications_history_write_seconds')?.get())?.values.find(
      (v) =>
        (v as { metricName?: string }).metricName === 'notifications_history_write_seconds_count' &&
        v.labels['record'] === 'readings',
    );
    const readings = (await registry.getSingleMetric('notifications_history_records_total')?.get())?.values.find(
      (v) => v.labels['record'] === 'readings',
    );
    return { writes: writes?.value ?? 0, readings: readings?.value ?? 0 };
  }

  it('writes every watched position of a round, at most one write per batch job', async () => {
    const scheduler = h.scheduler();
    const before = await readingWrites();
    const started = new Date();
    h.sandbox.ledger.closeLedger();
    const report = await scheduler.tick();
    expect(report).toMatchObject({ wallets: WALLETS, batches: 3, outcome: 'completed' });

    // Written behind the round: wait for every reading, then count the writes that held them.
    let after = await readingWrites();
    for (let i = 0; i < 300 && after.readings - before.readings < WALLETS; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await readingWrites();
    }
    expect(after.readings - before.readings).toBe(WALLETS);
    expect(after.writes - before.writes).toBeGreaterThanOrEqual(1);
    expect(after.writes - before.writes).toBeLessThanOrEqual(3);

    const health = h.app.get(HealthHistoryRepository, { strict: false });
    const [point] = await health.between(ROUND_TIER, {
      walletAddress: risky,
      poolAddress: h.scenario.pool,
      from: started,
      to: later(),
    });
    const [healthy] = await health.between(ROUND_TIER, { walletAddress: wallets[0], from: started, to: later() });
    expect(point).toMatchObject({ walletAddress: risky, poolAddress: h.scenario.pool, riskLevel: expect.any(String) });
    expect(point.healthFactor).toBeGreaterThan(0);
    expect(healthy.healthFactor).toBeGreaterThan(point.healthFactor as number);
    expect(Array.isArray(point.triggers)).toBe(true);

    // A round where nothing moved writes nothing more; one after a price change writes the changed positions.
    h.sandbox.ledger.closeLedger();
    await scheduler.tick();
    const recorder = h.app.get(HistoryRecorder, { strict: false });
    await recorder.flush();
    expect((await readingWrites()).readings).toBe(after.readings);
    const price = await fetch(`${h.sandbox.url}/control/oracles/${h.scenario.oracle}/prices`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ asset: h.scenario.xlm, price: '2800000' }),
    });
    expect(price.status).toBe(200);
    h.sandbox.ledger.closeLedger();
    await scheduler.tick();
    await recorder.flush();
    const points = await health.between(ROUND_TIER, { walletAddress: risky, from: started, to: later() });
    expect(points).toHaveLength(2);
    expect(points[0].healthFactor).toBeLessThan(points[1].healthFactor as number);
    expect((await readingWrites()).readings).toBe(after.readings + WALLETS);
  });
});
