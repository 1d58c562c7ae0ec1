import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { RiskLevel } from '@rp/contracts';
import { RedisClient, createApp, initApp, loadConfig } from '@rp/platform';
import { type LoadedScenario, type RunningSandbox, UNIT, startSandbox } from '@rp/sandbox';
import { Registry } from 'prom-client';
import { NotificationsSettings } from '../src/settings/notifications-settings';
import { NotificationConfigRepository } from '../src/channel-configs/notification-config.repository';
import { MonitorKeys } from '../src/monitor/monitor-keys';
import { MonitorMetrics } from '../src/monitor/monitor-metrics';
import { MonitorQueue } from '../src/monitor/monitor-queue';
import { MonitorScheduler } from '../src/monitor/monitor-scheduler';
import { PositionCache } from '../src/monitor/position-cache';
import { RoundAuctions } from '../src/monitor/round-auctions';
import { schedulerLock } from '../src/monitor/scheduler-lock';
import { notificationsApp } from '../src/notifications.app';
import { BorrowRateRecord } from '../src/risk/borrow-rate-record';
import { PoolSnapshots } from '../src/risk/pool-snapshots';
import { RmsLedger } from '../src/risk/rms-ledger';

export const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

export interface MonitorHarness {
  sandbox: RunningSandbox;
  scenario: LoadedScenario;
  /** The notifications app in role `worker`: batch jobs and deliveries, no scheduler of its own. */
  app: NestFastifyApplication;
  config: NotificationsSettings;
  /** A scheduler built as the `monitor` role builds it; `close()` stops every one made. */
  scheduler(): MonitorScheduler;
  /** Registers an email channel for each wallet (the monitor watches wallets with an enabled channel). */
  watch(wallets: readonly string[], minRiskLevel?: RiskLevel): Promise<void>;
  /** Removes the email channel `watch` registered. */
  unwatch(wallet: string): Promise<void>;
  /** Seeds `count` healthy positions (1000 XLM collateral, 100 USDC debt: HF about 2.14) and returns the wallets. */
  seedHealthy(count: number): string[];
  /** Calls per RPC method the sandbox answered. */
  calls(method: string): number;
  /** A metric's value for the given labels (0 when absent). */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  close(): Promise<void>;
}

let emails = 0;

/** The sandbox (demo scenario, ledgers closed by the test) and the notifications app on the test Redis. */
export async function startMonitorHarness(env: Record<string, string> = {}): Promise<MonitorHarness> {
  const sandbox = await startSandbox({ port: 0, tlsPort: 0, smtpPort: 0, ledgerIntervalMs: 0 });
  const scenario = sandbox.scenario as LoadedScenario;
  sandbox.ledger.closeLedger();
  const config = loadConfig(NotificationsSettings, {
    REDIS_URL,
    DATABASE_URL: 'sqlite://memory',
    LOG_LEVEL: 'silent',
    NOTIFICATIONS_ROLE: 'worker',
    CONTRACT_RPC_URL: sandbox.rpcUrl,
    RMS_POOLS: scenario.pool,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(sandbox.smtpPort),
    EMAIL_FROM: 'alerts@example.com',
    NOTIFICATIONS_KEY_PREFIX: `m${randomBytes(5).toString('hex')}`,
    ...env,
  });
  const app = await initApp(await createApp(notificationsApp, config));
  const get = <T>(type: abstract new (...args: never[]) => T): T => app.get(type as never, { strict: false }) as T;
  const schedulers: MonitorScheduler[] = [];
  const queues: MonitorQueue[] = [];
  const reserves = sandbox.control.directory.pool(scenario.pool)?.reserves ?? [];
  const index = (asset: string) => reserves.indexOf(asset);
  return {
    sandbox,
    scenario,
    app,
    config,
    scheduler() {
      const queue = new MonitorQueue(config.redis(), config);
      queues.push(queue);
      const scheduler = new MonitorScheduler(
        config,
        get(RedisClient),
        get(RmsLedger),
        get(PoolSnapshots),
        get(NotificationConfigRepository),
        queue,
        get(MonitorMetrics),
        get(MonitorKeys),
        get(PositionCache),
        schedulerLock(get(RedisClient), get(MonitorKeys)),
        new RoundAuctions(get(RmsLedger), get(RedisClient), get(MonitorKeys)),
        get(BorrowRateRecord),
      );
      schedulers.push(scheduler);
      return scheduler;
    },
    async watch(wallets, minRiskLevel = 'high') {
      const repository = get(NotificationConfigRepository);
      for (const wallet of wallets) {
        emails += 1;
        await repository.upsert('monitor-test-account', wallet, 'email', {
          enabled: true,
          minRiskLevel,
          email: `watcher${emails}@example.com`,
        });
      }
    },
    async unwatch(wallet) {
      await get(NotificationConfigRepository).remove('monitor-test-account', wallet, 'email');
    },
    seedHealthy(count) {
      const wallets = sandbox.control.setup.newAddresses(count);
      sandbox.control.setup.seedPositions(scenario.pool, wallets, {
        collateral: new Map([[index(scenario.xlm), 1000n * UNIT]]),
        liabilities: new Map([[index(scenario.usdc), 100n * UNIT]]),
        supply: new Map(),
      });
      return wallets;
    },
    calls: (method) => sandbox.control.dump().rpcCalls[method] ?? 0,
    async metric(name, labels = {}) {
      const found = (await get(Registry).getSingleMetric(name)?.get())?.values.find((value) =>
        Object.entries(labels).every(([key, wanted]) => String(value.labels[key]) === wanted),
      );
      return found?.value ?? 0;
    },
    async close() {
      for (const scheduler of schedulers) await scheduler.onApplicationShutdown();
      for (const queue of queues) await queue.onApplicationShutdown();
      await app.close();
      await sandbox.close();
    },
  };
}
