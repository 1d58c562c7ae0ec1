import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { type PoolActivity, borrowRates, poolActivitySince } from '@rp/ledger';
import { RedisClient } from '@rp/platform';
import { NotificationConfigRepository, type WatchedWallet } from '../channel-configs/notification-config.repository';
import { NotificationsSettings } from '../settings/notifications-settings';
import { BorrowRateRecord, lastRoundBefore } from '../risk/borrow-rate-record';
import { PoolSnapshots } from '../risk/pool-snapshots';
import { RmsLedger } from '../risk/rms-ledger';
import { MonitorKeys } from './monitor-keys';
import type { MonitorBatchJob } from './monitor-job';
import { MonitorMetrics, type RoundOutcome } from './monitor-metrics';
import { MonitorQueue } from './monitor-queue';
import { PositionCache } from './position-cache';
import { RoundAuctions } from './round-auctions';
import { encodeRoundPools } from './round-pools';
import { LOCK_TTL_MS, SchedulerLock } from './scheduler-lock';

/** How often a running round checks whether its batches are done. */
const DONE_POLL_MS = 5;
/** The watch list is read again when a configuration changed, and at least this often. */
const WATCH_LIST_MAX_AGE_MS = 60_000;

export interface RoundReport {
  readonly round: number;
  readonly ledger: number;
  readonly wallets: number;
  readonly batches: number;
  readonly outcome: RoundOutcome;
  readonly durationMs: number;
  /** Wall clock (epoch ms) at the start and the end of the round. */
  readonly startedAt: number;
  readonly endedAt: number;
}

/**
 * The monitor's scheduler (role `monitor`): while it holds the Redis lock, every new ledger starts a round. A round
 * reads the pool events since the last round (wallets they name are read again from the ledger), each watched
 * pool's config, reserves and prices once, then splits the watched wallets into BullMQ batch jobs that the workers
 * of every replica share, and waits for all of them before the next round can start: a slow round delays the next
 * one (which then evaluates the newest ledger) and never overlaps it.
 */
@Injectable()
export class MonitorScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MonitorScheduler');
  private lastLedger = 0;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private watch?: { mark: string; list: WatchedWallet[]; readAt: number };
  /** Rounds this scheduler ran (tests and the bench read it). */
  readonly rounds: RoundReport[] = [];

  constructor(
    private readonly config: NotificationsSettings,
    private readonly redis: RedisClient,
    private readonly ledger: RmsLedger,
    private readonly snapshots: PoolSnapshots,
    private readonly configs: NotificationConfigRepository,
    private readonly queue: MonitorQueue,
    private readonly metrics: MonitorMetrics,
    private readonly keys: MonitorKeys,
    private readonly cache: PositionCache,
    readonly lock: SchedulerLock,
    private readonly auctions: RoundAuctions,
    private readonly rateRecord: BorrowRateRecord,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.runs('monitor')) this.start();
  }

  /** Polls for new ledgers until shutdown (the `monitor` role does this at boot). */
  start(): void {
    if (!this.config.CONTRACT_RPC_URL || this.config.RMS_POOLS.length === 0) {
      this.logger.warn('monitor idle: CONTRACT_RPC_URL and RMS_POOLS are needed to watch positions');
      return;
    }
    this.stopped = false;
    this.schedule(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
    await this.lock.release().catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .then(() => undefined)
        .catch((error: unknown) => this.logger.warn(`monitor: ${(error as Error).message}`))
        .finally(() => this.schedule(this.config.RMS_LEDGER_POLL_MS));
    }, delayMs);
  }

  /** One poll: take or keep the lock, and run a round when a ledger closed since the last one. */
  async tick(): Promise<RoundReport | undefined> {
    if (!(await this.lock.hold())) return undefined;
    const latest = await this.ledger.latestLedger();
    if (latest <= this.lastLedger) return undefined;
    return this.runRound(latest);
  }

  async runRound(ledger: number): Promise<RoundReport> {
    const startedAt = Date.now();
    const started = performance.now();
    const pools = this.ledger.pools();
    // Independent reads, side by side: the watch list, the pools' events (cache invalidation), the pools and prices.
    const [watched, activity, snapshots, round, rateHistory] = await Promise.all([
      this.watchList(),
      this.forgetMoved(pools, ledger),
      Promise.all(pools.map((pool) => this.snapshots.at(pool, ledger))),
      this.redis.incr(this.keys.roundCounter),
      this.rateRecord.read(),
    ]);
    this.metrics.walletsWatched.set(watched.length);
    // Each reserve's borrow rate now, against the last round's (kept in Redis beside the round's pools).
    const lastRound = lastRoundBefore(rateHistory, ledger);
    const rates = new Map(snapshots.map((s, i) => [pools[i], borrowRates(s.pool.reserves)]));
    const auctions = await this.auctions.of(pools, activity?.newAuctions);
    const roundPools = snapshots.map((s, i) => ({
      pool: pools[i],
      reserves: s.pool.reserves,
      prices: s.prices,
      status: s.pool.config.status,
      closeTime: s.closeTime,
      previousBorrowRates: lastRound?.rates.get(pools[i]),
      ...auctions.get(pools[i]),
    }));
    const ttl = this.config.RMS_ROUND_TIMEOUT_MS * 2;
    await this.redis
      .multi()
      .set(this.keys.roundPools(round), encodeRoundPools(roundPools), 'PX', ttl)
      .set(this.keys.currentRound, String(round))
      .set(...this.rateRecord.next(rateHistory, { ledger, rates }))
      .exec();
    const size = this.config.RMS_MONITOR_BATCH_SIZE;
    const batches: MonitorBatchJob[] = [];
    for (let i = 0; i < watched.length; i += size) {
      const wallets = watched.slice(i, i + size).map((w) => [w.walletAddress, w.minRiskLevel] as const);
      batches.push({ round, ledger, wallets });
    }
    await this.queue.addRound(round, batches);
    const outcome = await this.waitForBatches(round, batches.length, started);
    this.lastLedger = ledger;
    const durationMs = performance.now() - started;
    this.metrics.roundDuration.observe({ outcome }, durationMs / 1000);
    const report = {
      round,
      ledger,
      wallets: watched.length,
      batches: batches.length,
      outcome,
      durationMs,
      startedAt,
      endedAt: Date.now(),
    };
    this.rounds.push(report);
    if (this.rounds.length > 1000) this.rounds.shift();
    if (outcome !== 'completed')
      this.logger.warn(`round ${round} (ledger ${ledger}) ${outcome} after ${durationMs} ms`);
    return report;
  }

  /** Every wallet with an enabled channel; read in full only when a configuration changed (50k: a second). */
  private async watchList(): Promise<WatchedWallet[]> {
    const mark = await this.configs.changeMark();
    const known = this.watch;
    if (known?.mark === mark && Date.now() - known.readAt < WATCH_LIST_MAX_AGE_MS) return known.list;
    const list = await this.configs.watchList();
    this.watch = { mark, list, readAt: Date.now() };
    return list;
  }

  /**
   * Cached positions of wallets named by the pools' events since the last round are dropped (read again now).
   * Without a known last ledger, when the events cannot be read, or when the last ledger read is ahead of the
   * network's newest (the network was reset: a sandbox restarted, a test network wiped), every cached position is
   * dropped.
   */
  private async forgetMoved(pools: readonly string[], ledger: number): Promise<PoolActivity | undefined> {
    let activity: PoolActivity | undefined;
    const last = Number(await this.redis.get(this.keys.eventsLedger));
    if (!Number.isInteger(last) || last <= 0 || last > ledger) {
      if (last > ledger)
        this.logger.warn(`ledger ${ledger} is behind ${last}, the last one read: the network was reset`);
      await this.cache.clear(pools);
    } else if (last < ledger) {
      try {
        activity = await poolActivitySince(this.ledger.rpc(), pools, last + 1);
        const { touched } = activity;
        await Promise.all([...touched].map(([pool, wallets]) => this.cache.forget(pool, [...wallets])));
      } catch (error) {
        this.logger.warn(`pool events unreadable (${(error as Error).message}): every position is read again`);
        await this.cache.clear(pools);
      }
    }
    await this.redis.set(this.keys.eventsLedger, String(ledger));
    return activity;
  }

  private async waitForBatches(round: number, batches: number, started: number): Promise<RoundOutcome> {
    if (batches === 0) return 'completed';
    let lastRenewal = performance.now();
    for (;;) {
      const done = Number(await this.redis.get(this.keys.roundDone(round)));
      if (done >= batches) return 'completed';
      const now = performance.now();
      if (now - started > this.config.RMS_ROUND_TIMEOUT_MS) return 'timed_out';
      if (now - lastRenewal > LOCK_TTL_MS / 3) {
        lastRenewal = now;
        if (!(await this.lock.hold())) this.logger.warn(`round ${round}: the scheduler lock was lost`);
      }
      await new Promise((resolve) => setTimeout(resolve, DONE_POLL_MS));
    }
  }
}
