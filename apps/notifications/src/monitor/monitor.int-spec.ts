/**
 * The monitor against the sandbox, the test Redis and real BullMQ workers: rounds split into batch jobs that read
 * positions 200 keys per getLedgerEntries, a cache that only re-prices until a pool event names a wallet (or its
 * refresh comes), alerts through the intake to a channel stand-in, one scheduler at a time, and rounds that never
 * overlap.
 */
import { UNIT } from '@rp/sandbox';
import { type MonitorHarness, startMonitorHarness } from '../../test/monitor.int-support';
import { RedisClient } from '@rp/platform';
import { RiskConfigRepository } from '../risk-config/risk-config.repository';
import { MonitorKeys } from './monitor-keys';
import type { MonitorScheduler } from './monitor-scheduler';

const WALLETS = 1200;

describe('monitor rounds', () => {
  let h: MonitorHarness;
  let scheduler: MonitorScheduler;
  let wallets: string[];

  beforeAll(async () => {
    h = await startMonitorHarness({ RMS_MONITOR_BATCH_SIZE: '500', RMS_POSITION_REFRESH_ROUNDS: '4' });
    wallets = h.seedHealthy(WALLETS - 1);
    // One wallet with a real position (pool events), registered like the others.
    const risky = h.sandbox.control.setup.newAddresses(1)[0];
    h.sandbox.control.setup.openPosition(h.scenario.pool, {
      user: risky,
      supplyCollateral: [{ asset: h.scenario.xlm, amount: 1000n * UNIT }],
      borrow: [{ asset: h.scenario.usdc, amount: 100n * UNIT }],
    });
    wallets.push(risky);
    await h.watch(wallets);
    h.sandbox.ledger.closeLedger();
    scheduler = h.scheduler();
  }, 120_000);

  afterAll(() => h?.close());

  /** Closes a ledger and runs the round it starts; the getLedgerEntries calls it made. */
  async function round(on = scheduler) {
    h.sandbox.ledger.closeLedger();
    const before = h.calls('getLedgerEntries');
    const cachedBefore = await h.metric('rms_monitor_positions_total', { source: 'cache' });
    const readBefore = await h.metric('rms_monitor_positions_total', { source: 'ledger' });
    const report = await on.tick();
    return {
      report,
      ledgerEntriesCalls: h.calls('getLedgerEntries') - before,
      cached: (await h.metric('rms_monitor_positions_total', { source: 'cache' })) - cachedBefore,
      read: (await h.metric('rms_monitor_positions_total', { source: 'ledger' })) - readBefore,
    };
  }

  it('reads every position at first, in batch jobs of 500 wallets and requests of at most 200 keys', async () => {
    const first = await round();
    expect(first.report).toMatchObject({ wallets: WALLETS, batches: 3, outcome: 'completed' });
    expect(first.read).toBe(WALLETS);
    // The pool: instance + reserve list, then the reserves (2 calls); positions: 500 -> 3, 500 -> 3, 200 -> 1.
    expect(first.ledgerEntriesCalls).toBe(2 + 7);
    expect(await h.metric('rms_monitor_wallets_watched')).toBe(WALLETS);
  });

  it('only re-prices cached positions when nothing moved', async () => {
    const next = await round();
    expect(next.report?.outcome).toBe('completed');
    expect(next.read).toBe(0);
    expect(next.cached).toBe(WALLETS);
    expect(next.ledgerEntriesCalls).toBe(2);
  });

  it('reads every position again when the network was reset: its newest ledger is behind the last one read', async () => {
    const redis = h.app.get(RedisClient, { strict: false });
    await redis.set(new MonitorKeys(h.config.keyPrefix()).eventsLedger, '1000000');
    expect((await round()).read).toBe(WALLETS);
    expect((await round()).read).toBe(0);
  });

  it('reads again the wallet a pool event names, and its critical position reaches its channel', async () => {
    const risky = wallets[wallets.length - 1];
    h.sandbox.control.setup.openPosition(h.scenario.pool, {
      user: risky,
      borrow: [{ asset: h.scenario.usdc, amount: 110n * UNIT }],
    });
    const moved = await round();
    expect(moved.read).toBe(1);
    expect(moved.ledgerEntriesCalls).toBe(2 + 1);
    expect(await h.metric('rms_monitor_alerts_total', { level: 'critical' })).toBe(1);
    const until = Date.now() + 30_000;
    let mails = h.sandbox.channels.log.list({ channel: 'email' });
    while (mails.length === 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      mails = h.sandbox.channels.log.list({ channel: 'email' });
    }
    expect(mails).toHaveLength(1);
    expect(JSON.stringify(mails[0])).toMatch(/critical/i);
  });

  it('reads every position again within RMS_POSITION_REFRESH_ROUNDS rounds without any event', async () => {
    let read = 0;
    for (let i = 0; i < 4; i += 1) read += (await round()).read;
    expect(read).toBeGreaterThanOrEqual(WALLETS);
    expect(read).toBeLessThan(2 * WALLETS);
  });

  it('watches a wallet registered between rounds, and stops watching one whose channel is removed', async () => {
    const [newcomer] = h.seedHealthy(1);
    await h.watch([newcomer]);
    expect((await round()).report?.wallets).toBe(WALLETS + 1);
    await h.unwatch(newcomer);
    expect((await round()).report?.wallets).toBe(WALLETS);
  });

  it('runs one round per ledger with two schedulers, and the second takes over when the first stops', async () => {
    const second = h.scheduler();
    h.sandbox.ledger.closeLedger();
    const reports = await Promise.all([scheduler.tick(), second.tick()]);
    expect(reports.filter((report) => report !== undefined)).toHaveLength(1);
    expect(scheduler.lock.isHeld).toBe(true);
    expect(second.lock.isHeld).toBe(false);

    await scheduler.onApplicationShutdown();
    const takeover = await round(second);
    expect(takeover.report).toMatchObject({ outcome: 'completed', wallets: WALLETS });
  });
});

describe("a wallet's own level bounds", () => {
  let h: MonitorHarness;

  beforeAll(async () => {
    h = await startMonitorHarness({ RMS_MONITOR_BATCH_SIZE: '2' });
  }, 120_000);

  afterAll(() => h?.close());

  it("judges each position by its own wallet's account's bounds, never by a watcher's", async () => {
    // Three positions at HF ~2.14 (low by the defaults), watched from `high` on, in two batch jobs.
    const [own, watched, plain] = h.seedHealthy(3);
    await h.watch([own, watched, plain]);
    const configs = h.app.get(RiskConfigRepository, { strict: false });
    // The wallet's own account (keys bought by the wallet): critical below 2.3. The watching account's bounds for
    // another wallet (it has a channel for it, but has not proven it controls it): they do not decide the alert.
    await configs.put(`wallet:${own}`, own, { levels: { medium: 3, high: 2.6, critical: 2.3 } });
    await configs.put('monitor-test-account', watched, { levels: { medium: 3, high: 2.6, critical: 2.3 } });
    h.sandbox.ledger.closeLedger();
    const report = await h.scheduler().tick();
    expect(report).toMatchObject({ wallets: 3, batches: 2, outcome: 'completed' });
    expect(await h.metric('rms_monitor_alerts_total', { level: 'critical' })).toBe(1);
    expect(await h.metric('rms_monitor_alerts_total', { level: 'high' })).toBe(0);
    const until = Date.now() + 30_000;
    let mails = h.sandbox.channels.log.list({ channel: 'email' });
    while (mails.length === 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      mails = h.sandbox.channels.log.list({ channel: 'email' });
    }
    expect(mails).toHaveLength(1);
    expect(JSON.stringify(mails[0])).toContain(own);
    expect(JSON.stringify(mails[0])).toMatch(/critical/i);
  });
});

describe('slow rounds', () => {
  let h: MonitorHarness;

  beforeAll(async () => {
    h = await startMonitorHarness({ RMS_LEDGER_POLL_MS: '50', RMS_MONITOR_BATCH_SIZE: '100' });
    await h.watch(h.seedHealthy(300));
  }, 120_000);

  afterAll(() => h?.close());

  it('never overlap: the next round starts after the last one ended, on the newest ledger', async () => {
    const scheduler = h.scheduler();
    // Every ledger read takes 150 ms: a round (pool + positions) lasts longer than a ledger closes (every 100 ms).
    h.sandbox.faults.add({
      kind: 'latency',
      method: 'getLedgerEntries',
      latencyMs: 150,
      count: Number.POSITIVE_INFINITY,
    });
    scheduler.start();
    let closed = 0;
    while (scheduler.rounds.length < 4) {
      h.sandbox.ledger.closeLedger();
      closed += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await scheduler.onApplicationShutdown();
    h.sandbox.faults.clear();
    const rounds = scheduler.rounds;
    for (let i = 1; i < rounds.length; i += 1) {
      expect(rounds[i].startedAt).toBeGreaterThanOrEqual(rounds[i - 1].endedAt);
      expect(rounds[i].ledger).toBeGreaterThan(rounds[i - 1].ledger);
    }
    expect(rounds.every((r) => r.outcome === 'completed')).toBe(true);
    // Ledgers that closed while a round ran were not queued up as rounds of their own.
    expect(rounds.length).toBeLessThan(closed);
  });
});
