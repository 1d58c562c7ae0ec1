import { Injectable } from '@nestjs/common';
import { isAtLeast, type RiskAlert, type RiskLevel, type RiskLevelBounds } from '@rp/contracts';
import {
  MissingPriceError,
  type PoolFacts,
  type PoolUser,
  type PositionLevel,
  type PositionRisk,
  type Positions,
  assessPosition,
  holdsCollateralOrDebt,
  poolFacts,
  positionLevel,
  positionRiskOf,
} from '@rp/ledger';
import { RedisClient } from '@rp/platform';
import { AlertIntake } from '../alerts/alert-intake.service';
import type { PositionReading } from '../history/health-tiers';
import { HistoryRecorder } from '../history/history-recorder';
import { NotificationsSettings } from '../settings/notifications-settings';
import { riskAlert } from '../risk/risk-alert';
import { RmsLedger } from '../risk/rms-ledger';
import { RiskBounds } from '../risk-config/risk-bounds';
import { MonitorKeys } from './monitor-keys';
import type { MonitorBatchJob } from './monitor-job';
import { MonitorMetrics } from './monitor-metrics';
import { type CachedPositions, PositionCache } from './position-cache';
import { type RoundPool, decodeRoundPools } from './round-pools';

export interface BatchOutcome {
  readonly stale: boolean;
  /** Positions (wallet, pool) read from the ledger / re-priced from the cache. */
  readonly read: number;
  readonly cached: number;
  readonly alerts: number;
}

/** A round's pool with what every position in it shares: its facts, and the wallets with an auction against them. */
interface FactsOfPool {
  readonly pool: RoundPool;
  readonly facts: PoolFacts;
  readonly auctions: ReadonlySet<string>;
}

/**
 * One batch job of a round: the batch's positions in every watched pool, from the cache when nothing moved and from
 * the ledger otherwise (200 keys per `getLedgerEntries`), valued against the round's pools and prices; an alert goes
 * to the intake for every position with debt at or above the lowest level the wallet's channels want, the level
 * judged by the wallet's risk configuration (`RiskBounds.watched`: every wallet's, read at most once per few seconds).
 */
@Injectable()
export class MonitorBatchEvaluator {
  private roundPools?: { round: number; pools: Promise<FactsOfPool[] | undefined> };

  constructor(
    private readonly ledger: RmsLedger,
    private readonly redis: RedisClient,
    private readonly config: NotificationsSettings,
    private readonly intake: AlertIntake,
    private readonly metrics: MonitorMetrics,
    private readonly keys: MonitorKeys,
    private readonly cache: PositionCache,
    private readonly bounds: RiskBounds,
    private readonly history: HistoryRecorder,
  ) {
    this.stablecoins = ledger.stablecoins();
  }

  private readonly stablecoins: ReadonlySet<string>;

  async evaluate(job: MonitorBatchJob): Promise<BatchOutcome> {
    const current = Number(await this.redis.get(this.keys.currentRound));
    const pools = current === job.round ? await this.poolsOf(job.round) : undefined;
    if (!pools) return { stale: true, read: 0, cached: 0, alerts: 0 };
    const wallets = job.wallets.map(([wallet]) => wallet);
    const known = await Promise.all(pools.map(({ pool }) => this.cache.get(pool.pool, wallets)));
    const due: PoolUser[] = [];
    pools.forEach(({ pool }, p) =>
      wallets.forEach((wallet, w) => {
        const cached = known[p][w];
        if (cached === undefined || cached.dueRound <= job.round) due.push({ pool: pool.pool, user: wallet });
      }),
    );
    const bounds = await this.bounds.watched();
    const fresh = due.length > 0 ? await this.readPositions(due, job.round) : new Map<string, Map<string, Positions>>();
    const evaluatedAt = new Date().toISOString();
    const alerts: RiskAlert[] = [];
    const readings: PositionReading[] = [];
    pools.forEach((pool, p) => {
      const read = fresh.get(pool.pool.pool);
      job.wallets.forEach(([wallet, minimum], w) => {
        const positions = read?.get(wallet) ?? known[p][w]?.positions;
        const alert =
          positions &&
          this.alertOf(pool, wallet, positions, minimum, bounds.get(wallet), evaluatedAt, job.round, readings);
        if (alert) alerts.push(alert);
      });
    });
    const recorded = this.history.recordReadings(job.round, new Date(evaluatedAt), readings);
    // The batch's alerts to the intake at once: one round trip for their cooldowns, one addBulk (ADR 028). An
    // auction started this round is sent whatever the cooldown (decisions, "Risk and notifications").
    for (const alert of alerts) this.metrics.alerts.inc({ level: alert.riskLevel });
    await this.intake.submitBatch(
      alerts.map((alert) => {
        const started =
          pools.find(({ pool }) => pool.pool === alert.poolAddress)?.pool.newAuctions?.includes(alert.address) === true;
        return { alert, options: { source: 'monitor', ...(started && { bypassCooldown: true }) } };
      }),
    );
    await recorded;
    const cached = pools.length * wallets.length - due.length;
    this.metrics.positions.inc({ source: 'ledger' }, due.length);
    this.metrics.positions.inc({ source: 'cache' }, cached);
    return { stale: false, read: due.length, cached, alerts: alerts.length };
  }

  /**
   * The position's reading (health factor, level, triggers) for the history and, when its level is one the wallet's
   * channels want, its alert: valued in USD only then.
   */
  private alertOf(
    pool: FactsOfPool,
    wallet: string,
    positions: Positions,
    minimum: RiskLevel,
    bounds: RiskLevelBounds | undefined,
    evaluatedAt: string,
    round: number,
    readings: PositionReading[],
  ): RiskAlert | undefined {
    const level = this.levelOf(pool, wallet, positions, bounds);
    if (level === undefined) return undefined;
    const { healthFactor, riskLevel, triggers } = level;
    const poolAddress = pool.pool.pool;
    readings.push({ walletAddress: wallet, poolAddress, healthFactor, riskLevel, triggers });
    // Without debt there is no health factor and no alert (`riskAlert`).
    if (healthFactor === null || !isAtLeast(riskLevel, minimum)) return undefined;
    const risk = 'recommendedAction' in level ? level : positionRiskOf(pool.facts, positions, level);
    return riskAlert({ wallet, pool: poolAddress, risk }, evaluatedAt, round);
  }

  /**
   * The position's level from the round's pool facts; for a pool whose integers the facts do not cover (a rate or
   * factor at 0), its whole risk as the risk answer computes it. None when nothing is held as collateral or debt, or
   * no oracle price exists for what is held (the pool refuses it too: InvalidPrice; valued once the oracle has one).
   */
  private levelOf(
    { pool, facts, auctions }: FactsOfPool,
    wallet: string,
    positions: Positions,
    bounds: RiskLevelBounds | undefined,
  ): PositionLevel | PositionRisk | undefined {
    if (facts.positive) {
      const level = positionLevel(facts, positions, bounds, auctions.has(wallet));
      return typeof level === 'string' ? undefined : level;
    }
    if (!holdsCollateralOrDebt(positions)) return undefined;
    try {
      return assessPosition(pool.reserves, pool.prices, positions, bounds, {
        status: pool.status,
        stablecoins: this.stablecoins,
        ledgerCloseTime: pool.closeTime,
        previousBorrowRates: pool.previousBorrowRates,
        liquidationAuction: auctions.has(wallet),
      });
    } catch (error) {
      if (error instanceof MissingPriceError) return undefined;
      throw error;
    }
  }

  /** Reads positions from the ledger and caches them until a round spread over the refresh period. */
  private async readPositions(due: readonly PoolUser[], round: number): Promise<Map<string, Map<string, Positions>>> {
    const reader = await this.ledger.poolReader();
    const read = await reader.loadPositionsAcross(due);
    const refresh = this.config.RMS_POSITION_REFRESH_ROUNDS;
    await Promise.all(
      [...read.positions].map(([pool, byUser]) =>
        this.cache.put(
          pool,
          [...byUser].map(([wallet, positions]): [string, CachedPositions] => [
            wallet,
            { positions, dueRound: round + refresh - (spread(wallet) % Math.ceil(refresh / 2)) },
          ]),
        ),
      ),
    );
    return read.positions;
  }

  /** The round's pools as its scheduler stored them, read and their facts derived once per process and round. */
  private poolsOf(round: number): Promise<FactsOfPool[] | undefined> {
    if (this.roundPools?.round !== round) {
      const pools = this.redis
        .get(this.keys.roundPools(round))
        .then((text) => (text === null ? undefined : decodeRoundPools(text).map((pool) => this.factsOf(pool))));
      this.roundPools = { round, pools };
      pools.catch(() => {
        if (this.roundPools?.pools === pools) this.roundPools = undefined;
      });
    }
    return this.roundPools.pools;
  }

  private factsOf(pool: RoundPool): FactsOfPool {
    const facts = poolFacts(pool.reserves, pool.prices, {
      status: pool.status,
      stablecoins: this.stablecoins,
      ledgerCloseTime: pool.closeTime,
      previousBorrowRates: pool.previousBorrowRates,
    });
    return { pool, facts, auctions: new Set(pool.auctions) };
  }
}

/** A stable number per wallet, so that refreshes of a batch's wallets fall on different rounds. */
function spread(wallet: string): number {
  let hash = 2166136261;
  for (let i = 0; i < wallet.length; i += 1) hash = Math.imul(hash ^ wallet.charCodeAt(i), 16777619);
  return hash >>> 0;
}
