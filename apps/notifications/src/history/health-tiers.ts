import { type HealthResolution, type RiskLevel, RISK_LEVELS, worseRiskLevel } from '@rp/contracts';
import type { CollectionDefinition } from '@rp/persistence';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** One watched position's health at one time: a round's reading, or the roll-up of an hour or a day of them. */
export interface HealthPointRecord {
  id: string;
  walletAddress: string;
  poolAddress: string;
  /** The round's evaluation time, or the start of the hour or day (UTC). */
  at: Date;
  /** The round's, or the worst (lowest) of the bucket's; `null` without debt. */
  healthFactor: number | null;
  /** The round's, or the worst of the bucket's. */
  riskLevel: RiskLevel;
  /** The round's, or every trigger seen in the bucket (in first-seen order). */
  triggers: string[];
  /** When retention removes it (the collection's TTL field). */
  expiresAt: Date;
}

/** What a series is read for: a wallet (one pool, or all), in [from, to). */
export interface SeriesRange {
  walletAddress: string;
  poolAddress?: string;
  from: Date;
  to: Date;
}

/** A position's reading of one round, as the monitor hands it over. */
export interface PositionReading {
  walletAddress: string;
  poolAddress: string;
  healthFactor: number | null;
  riskLevel: RiskLevel;
  triggers: readonly string[];
}

/**
 * One tier of the health series (ADR 024): every round for 24 hours, hourly roll-ups for 30 days, daily roll-ups
 * for a year. A roll-up tier is made from the tier below (`source`) once its bucket has closed.
 */
export interface HealthTier {
  readonly resolution: HealthResolution;
  readonly collection: CollectionDefinition;
  readonly retentionMs: number;
  /** Bucket length of a roll-up tier. */
  readonly bucketMs?: number;
  readonly source?: HealthTier;
}

const ttl = { field: 'expiresAt' };
/** A wallet's series is read by wallet and time; a roll-up reads a bucket of every wallet by time (ADR 034). */
const indexes = [
  { name: 'wallet_at', fields: ['walletAddress'], dateRange: 'at' },
  { name: 'at', fields: [], dateRange: 'at' },
];
export const ROUND_TIER: HealthTier = {
  resolution: 'round',
  collection: { name: 'health_rounds', ttl, indexes },
  retentionMs: DAY_MS,
};
export const HOUR_TIER: HealthTier = {
  resolution: 'hour',
  collection: { name: 'health_hours', ttl, indexes },
  retentionMs: 30 * DAY_MS,
  bucketMs: HOUR_MS,
  source: ROUND_TIER,
};
export const DAY_TIER: HealthTier = {
  resolution: 'day',
  collection: { name: 'health_days', ttl, indexes },
  retentionMs: 365 * DAY_MS,
  bucketMs: DAY_MS,
  source: HOUR_TIER,
};
export const ROLLUP_TIERS: readonly HealthTier[] = [HOUR_TIER, DAY_TIER];

/** A series holds at most this many points (the newest); a request's range picks a resolution that stays below. */
export const MAX_SERIES_POINTS = 2000;
/** The longest range a request may ask for. */
export const MAX_RANGE_MS = 366 * DAY_MS;
/** Without `from`: the last hour, every round (the chart's live view). */
export const DEFAULT_RANGE_MS = HOUR_MS;
/** Ranges up to this length, within the rounds' 24 hours, are answered round by round. */
const ROUND_RANGE_MS = 2 * HOUR_MS;
/** Ranges up to this length, within the hours' 30 days, hour by hour; longer ones day by day. */
const HOUR_RANGE_MS = 31 * DAY_MS;

/** The finest tier that still holds `from` and keeps the series short (ADR 024). */
export function tierFor(from: Date, to: Date, now: Date): HealthTier {
  const range = to.getTime() - from.getTime();
  const age = now.getTime() - from.getTime();
  if (range <= ROUND_RANGE_MS && age <= ROUND_TIER.retentionMs) return ROUND_TIER;
  if (range <= HOUR_RANGE_MS && age <= HOUR_TIER.retentionMs) return HOUR_TIER;
  return DAY_TIER;
}

/** The start of the bucket `at` falls in. */
export function bucketStart(at: Date, bucketMs: number): Date {
  return new Date(Math.floor(at.getTime() / bucketMs) * bucketMs);
}

export function roundPoint(reading: PositionReading, round: number, at: Date): HealthPointRecord {
  return {
    id: `${round}:${reading.walletAddress}:${reading.poolAddress}`,
    walletAddress: reading.walletAddress,
    poolAddress: reading.poolAddress,
    at,
    healthFactor: reading.healthFactor,
    riskLevel: reading.riskLevel,
    triggers: [...reading.triggers],
    expiresAt: new Date(at.getTime() + ROUND_TIER.retentionMs),
  };
}

/**
 * Rolls points up into `tier`'s buckets, one point per (wallet, pool, bucket): the lowest health factor (`null` only
 * when every point had none), the worst level, every trigger seen. Feeding it in several calls (windows of a bucket)
 * gives the same as one call.
 */
export class HealthRollup {
  private readonly points = new Map<string, HealthPointRecord>();

  constructor(private readonly tier: HealthTier) {}

  add(points: Iterable<Pick<HealthPointRecord, Exclude<keyof HealthPointRecord, 'id' | 'expiresAt'>>>): this {
    const size = this.tier.bucketMs ?? 1;
    for (const point of points) {
      const at = bucketStart(point.at, size);
      const id = `${at.toISOString()}:${point.walletAddress}:${point.poolAddress}`;
      const held = this.points.get(id);
      if (!held) {
        this.points.set(id, {
          id,
          walletAddress: point.walletAddress,
          poolAddress: point.poolAddress,
          at,
          healthFactor: point.healthFactor,
          riskLevel: point.riskLevel,
          triggers: [...point.triggers],
          expiresAt: new Date(at.getTime() + this.tier.retentionMs),
        });
        continue;
      }
      held.healthFactor = lower(held.healthFactor, point.healthFactor);
      held.riskLevel = worseRiskLevel(held.riskLevel, point.riskLevel);
      for (const trigger of point.triggers) if (!held.triggers.includes(trigger)) held.triggers.push(trigger);
    }
    return this;
  }

  result(): HealthPointRecord[] {
    return [...this.points.values()];
  }
}

function lower(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/** A level's rank (`low` 0 .. `critical` 3): alerts store it so that "this level or worse" is a range filter. */
export const levelRank = (level: RiskLevel): number => RISK_LEVELS.indexOf(level);
