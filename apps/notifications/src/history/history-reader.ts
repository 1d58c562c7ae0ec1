import { Injectable } from '@nestjs/common';
import {
  ALERT_HISTORY_DEFAULT_LIMIT,
  type AlertChannelOutcome,
  type AlertHistoryEntry,
  type AlertHistoryResponse,
  type HealthHistoryResponse,
  type HealthSeries,
  type HistoryAction,
  type RiskLevel,
} from '@rp/contracts';
import { NotificationConfigRepository } from '../channel-configs/notification-config.repository';
import { RiskConfigRepository } from '../risk-config/risk-config.repository';
import {
  type ActionRecord,
  type AlertRecord,
  type OutcomeRecord,
  intakeOutcomes,
  laterOutcome,
} from './alert-history-records';
import { AlertHistoryRepository } from './alert-history.repository';
import { HealthHistoryRepository } from './health-history.repository';
import {
  HealthRollup,
  type HealthPointRecord,
  type HealthTier,
  MAX_SERIES_POINTS,
  type SeriesRange,
  levelRank,
} from './health-tiers';

export interface AlertHistoryRequest {
  walletAddress?: string;
  level?: RiskLevel;
  since?: Date;
  limit?: number;
}

/** `undefined`: the wallet is not one of the account's (the route answers 404, as for any account-scoped data). */
export type Scoped<T> = T | undefined;

/**
 * Reads the history for one account (ADR 024). The account's wallets are those it registered a channel or set a
 * risk configuration for; another wallet is not found. Of an alert, it sees the outcomes on its own channel
 * configurations only; of the agent's closes, those reported under its own keys.
 */
@Injectable()
export class HistoryReader {
  constructor(
    private readonly alerts: AlertHistoryRepository,
    private readonly health: HealthHistoryRepository,
    private readonly channels: NotificationConfigRepository,
    private readonly riskConfigs: RiskConfigRepository,
  ) {}

  async alertHistory(accountId: string, request: AlertHistoryRequest): Promise<Scoped<AlertHistoryResponse>> {
    const wallets = await this.walletsOf(accountId);
    if (request.walletAddress !== undefined && !wallets.includes(request.walletAddress)) return undefined;
    const chosen = request.walletAddress !== undefined ? [request.walletAddress] : wallets;
    const limit = request.limit ?? ALERT_HISTORY_DEFAULT_LIMIT;
    const minRank = request.level && levelRank(request.level);
    const perWallet = await Promise.all(
      chosen.map(async (walletAddress) => {
        const [found, configs, actions] = await Promise.all([
          this.alerts.alerts({ walletAddress, since: request.since, minRank }, limit),
          this.channels.forAccount(accountId, walletAddress),
          this.alerts.actions(accountId, walletAddress, request.since, limit),
        ]);
        const oldest = found.alerts.at(-1)?.evaluatedAt;
        const outcomes = oldest ? await this.alerts.outcomes(walletAddress, oldest) : [];
        const own = new Set(configs.map((config) => config.id));
        const all = [...found.alerts.flatMap(intakeOutcomes), ...outcomes];
        return { ...found, outcomes: all.filter((outcome) => own.has(outcome.configId)), actions };
      }),
    );
    const byAlert = outcomesByAlert(perWallet.flatMap((w) => w.outcomes));
    const alerts = perWallet
      .flatMap((w) => w.alerts)
      .sort(newestFirst((a) => a.evaluatedAt))
      .slice(0, limit)
      .map((record) => alertEntry(record, byAlert.get(record.id) ?? []));
    const actions = perWallet
      .flatMap((w) => w.actions)
      .sort(newestFirst((a) => a.occurredAt))
      .slice(0, limit)
      .map(actionEntry);
    return { success: true, alerts, total: perWallet.reduce((sum, w) => sum + w.total, 0), actions };
  }

  async healthHistory(
    accountId: string,
    range: SeriesRange & { tier: HealthTier },
  ): Promise<Scoped<HealthHistoryResponse>> {
    if (!(await this.walletsOf(accountId)).includes(range.walletAddress)) return undefined;
    const points = await this.pointsOf(range.tier, range);
    return {
      success: true,
      walletAddress: range.walletAddress,
      resolution: range.tier.resolution,
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      series: seriesOf(points),
    };
  }

  /**
   * The tier's stored points, and for the buckets it has not rolled up yet (the current hour or day, and any the
   * janitor has not reached), the same roll-up made now from the tier below.
   */
  private async pointsOf(tier: HealthTier, range: SeriesRange): Promise<HealthPointRecord[]> {
    if (!tier.source) return this.health.between(tier, range);
    const { from, to } = range;
    const through = (await this.health.rolledThrough(tier)) ?? from;
    const split = new Date(Math.min(Math.max(from.getTime(), through.getTime()), to.getTime()));
    const [stored, recent] = await Promise.all([
      this.health.between(tier, { ...range, to: split }),
      split < to ? this.pointsOf(tier.source, { ...range, from: split }) : [],
    ]);
    return [...new HealthRollup(tier).add(recent).result(), ...stored];
  }

  private async walletsOf(accountId: string): Promise<string[]> {
    const [channels, risk] = await Promise.all([
      this.channels.walletsOf(accountId),
      this.riskConfigs.walletsOf(accountId),
    ]);
    return [...new Set([...channels, ...risk])];
  }
}

function newestFirst<T>(at: (item: T) => Date): (a: T, b: T) => number {
  return (a, b) => at(b).getTime() - at(a).getTime();
}

function outcomesByAlert(outcomes: readonly OutcomeRecord[]): Map<string, OutcomeRecord[]> {
  const standing = new Map<string, OutcomeRecord>();
  for (const outcome of outcomes) {
    const key = `${outcome.alertId}:${outcome.configId}`;
    const held = standing.get(key);
    standing.set(key, held ? laterOutcome(held, outcome) : outcome);
  }
  const byAlert = new Map<string, OutcomeRecord[]>();
  for (const outcome of standing.values()) groupInto(byAlert, outcome.alertId, outcome);
  return byAlert;
}

function alertEntry(record: AlertRecord, outcomes: readonly OutcomeRecord[]): AlertHistoryEntry {
  return {
    alertId: record.id,
    walletAddress: record.walletAddress,
    poolAddress: record.poolAddress,
    riskLevel: record.riskLevel,
    triggers: record.triggers,
    healthFactor: record.healthFactor,
    evaluatedAt: record.evaluatedAt.toISOString(),
    channels: [...outcomes]
      .sort((a, b) => a.channel.localeCompare(b.channel) || a.configId.localeCompare(b.configId))
      .map(
        (outcome): AlertChannelOutcome => ({
          channel: outcome.channel,
          outcome: outcome.outcome,
          at: outcome.at.toISOString(),
          ...(outcome.error !== undefined && { error: outcome.error }),
        }),
      ),
  };
}

/** The answer's action (fields left undefined are left out of the JSON). */
function actionEntry(record: ActionRecord): HistoryAction {
  const { eventId, type, walletAddress, poolAddress, healthFactorBefore, healthFactorAfter, txHash } = record;
  const action = { eventId, type, walletAddress, poolAddress, healthFactorBefore, healthFactorAfter, txHash };
  return { ...action, occurredAt: record.occurredAt.toISOString() };
}

/** One series per pool (by address), oldest point first, at most `MAX_SERIES_POINTS` (the newest). */
function seriesOf(points: readonly HealthPointRecord[]): HealthSeries[] {
  const byPool = new Map<string, HealthPointRecord[]>();
  for (const point of points) groupInto(byPool, point.poolAddress, point);
  return [...byPool.keys()].sort().map((poolAddress) => ({
    poolAddress,
    points: (byPool.get(poolAddress) ?? [])
      .sort((a, b) => a.at.getTime() - b.at.getTime())
      .slice(-MAX_SERIES_POINTS)
      .map((p) => ({
        at: p.at.toISOString(),
        healthFactor: p.healthFactor,
        riskLevel: p.riskLevel,
        triggers: p.triggers,
      })),
  }));
}

function groupInto<T>(groups: Map<string, T[]>, key: string, item: T): void {
  const group = groups.get(key);
  if (group) group.push(item);
  else groups.set(key, [item]);
}
