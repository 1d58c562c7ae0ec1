import { createHash } from 'node:crypto';
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import {
  type AccountEventRequest,
  type AlertOutcome,
  HISTORY_ACTION_TYPES,
  type HistoryActionType,
  type RiskAlert,
} from '@rp/contracts';
import type { AlertSource } from '../alerts/alert';
import type { ChannelConfigRecord } from '../channel-configs/notification-config';
import type { DeliveryJobData } from '../delivery/delivery-job';
import {
  ALERT_HISTORY_RETENTION_MS,
  type AlertRecord,
  type IntakeChannel,
  type OutcomeRecord,
} from './alert-history-records';
import { AlertHistoryRepository } from './alert-history.repository';
import { HealthHistoryRepository } from './health-history.repository';
import { type HistoryRecordKind, HistoryMetrics } from './history-metrics';
import { type HealthPointRecord, type PositionReading, ROUND_TIER, levelRank, roundPoint } from './health-tiers';
import { ReadingDeadband } from './reading-deadband';
import { WriteBehind, type WriteBehindOptions } from './write-behind';

/** What the intake did with one alert: the channel configurations it queued it to and those it held back. */
export interface AlertIntakeRecord {
  alert: RiskAlert;
  source: AlertSource;
  queued: readonly ChannelConfigRecord[];
  suppressed: readonly ChannelConfigRecord[];
}

/** Deliveries' outcomes are written together: a burst's, within 200 ms. */
const OUTCOME_WRITES: WriteBehindOptions = { quietMs: 50, maxWaitMs: 200, maxItems: 500 };
/**
 * A process's batch jobs of one round are written together once the round's batches have gone quiet, so the write
 * is not part of the round's time: at most one write per batch job, usually one per round and process.
 */
const READING_WRITES: WriteBehindOptions = { quietMs: 1000, maxWaitMs: 4000, maxItems: 50_000 };

const later = (at: Date) => new Date(at.getTime() + ALERT_HISTORY_RETENTION_MS);

/**
 * Writes the history (ADR 024), in batches: the intake's alerts with their outcomes (one write per batch of alerts),
 * the deliveries' outcomes (a burst's together), the monitor's readings (a round's batch jobs in this process
 * together, behind the round), the agent's closes. History is a record, never a gate: a failed write is logged and the alert goes on.
 */
@Injectable()
export class HistoryRecorder implements OnModuleDestroy {
  private readonly logger = new Logger(HistoryRecorder.name);
  private readonly outcomes = new WriteBehind<OutcomeRecord>(
    (batch) => this.safely('outcomes', batch.length, () => this.alerts.addOutcomes(batch)),
    OUTCOME_WRITES,
  );
  private readonly deadband = new ReadingDeadband();
  private readonly readings = new WriteBehind<HealthPointRecord>(
    (batch) => this.safely('readings', batch.length, () => this.health.add(ROUND_TIER, batch)),
    READING_WRITES,
  );

  constructor(
    private readonly alerts: AlertHistoryRepository,
    private readonly health: HealthHistoryRepository,
    private readonly metrics: HistoryMetrics,
  ) {}

  /**
   * The intake's alerts. A monitor alert that every channel held back (the same condition seen again next round,
   * inside the cooldown) is not recorded: the health series has it. Any other alert is, with each channel's outcome.
   */
  async recordAlerts(entries: readonly AlertIntakeRecord[], now = new Date()): Promise<void> {
    const kept = entries.filter((entry) => entry.source !== 'monitor' || entry.queued.length > 0);
    if (kept.length === 0) return;
    const alerts = kept.map(({ alert, source, queued, suppressed }): AlertRecord => {
      const evaluatedAt = new Date(alert.evaluatedAt);
      return {
        id: alert.alertId,
        walletAddress: alert.address,
        poolAddress: alert.poolAddress,
        riskLevel: alert.riskLevel,
        levelRank: levelRank(alert.riskLevel),
        triggers: [...alert.triggers],
        healthFactor: alert.healthFactor,
        evaluatedAt,
        source,
        expiresAt: later(evaluatedAt),
        intake: [
          ...queued.map((config) => intakeChannel(config, 'queued')),
          ...suppressed.map((config) => intakeChannel(config, 'suppressed')),
        ],
        takenAt: now,
      };
    });
    await this.safely('alerts', alerts.length, () => this.alerts.addAlerts(alerts));
  }

  /** A delivery's end: `delivered`, or `failed` with the dead letter's reason. Events' deliveries are not alerts. */
  recordDelivery(job: DeliveryJobData, outcome: 'delivered' | 'failed', error?: string): void {
    if (job.alert)
      void this.outcomes.add([outcomeOf(job.alert, job.configId, job.channel, outcome, new Date(), error)]);
  }

  /**
   * One monitor batch job's readings of one round: those that changed since the position's last point (or whose
   * last point is 5 minutes old), written behind the round with the process's other batch jobs of it; resolves at
   * once unless 50,000 readings wait.
   */
  recordReadings(round: number, evaluatedAt: Date, readings: readonly PositionReading[]): Promise<void> {
    const changed = readings.filter((reading) => this.deadband.keep(reading, evaluatedAt));
    return this.readings.add(changed.map((reading) => roundPoint(reading, round, evaluatedAt)));
  }

  /** An agent's event, when it is a close: the history's actions (the account's own). */
  async recordAction(accountId: string, event: AccountEventRequest): Promise<void> {
    if (!(HISTORY_ACTION_TYPES as readonly string[]).includes(event.type)) return;
    const occurredAt = new Date(event.occurredAt);
    await this.safely('actions', 1, () =>
      this.alerts.addAction({
        id: `${createHash('sha256').update(accountId).digest('hex').slice(0, 24)}:${event.eventId}`,
        accountId,
        eventId: event.eventId,
        type: event.type as HistoryActionType,
        walletAddress: event.walletAddress,
        poolAddress: event.poolAddress,
        healthFactorBefore: event.healthFactorBefore,
        healthFactorAfter: event.healthFactorAfter,
        txHash: event.txHash,
        occurredAt,
        expiresAt: later(occurredAt),
      }),
    );
  }

  /** Writes what waits (deliveries' outcomes, readings) now. */
  async flush(): Promise<void> {
    await Promise.all([this.outcomes.flush(), this.readings.flush()]);
  }

  async onModuleDestroy(): Promise<void> {
    await this.flush();
  }

  private async safely(what: HistoryRecordKind, count: number, write: () => Promise<unknown>): Promise<void> {
    const end = this.metrics.writes.startTimer({ record: what });
    try {
      await write();
      end({ outcome: 'ok' });
      this.metrics.records.inc({ record: what }, count);
    } catch (error) {
      end({ outcome: 'failed' });
      this.logger.warn(`history: ${what} not recorded: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function intakeChannel(config: ChannelConfigRecord, outcome: IntakeChannel['outcome']): IntakeChannel {
  return { configId: config.id, channel: config.channel, outcome };
}

function outcomeOf(
  alert: RiskAlert,
  configId: string,
  channel: OutcomeRecord['channel'],
  outcome: AlertOutcome,
  at: Date,
  error?: string,
): OutcomeRecord {
  const evaluatedAt = new Date(alert.evaluatedAt);
  return {
    id: `${alert.alertId}:${configId}:${outcome}`,
    alertId: alert.alertId,
    configId,
    walletAddress: alert.address,
    channel,
    outcome,
    at,
    ...(error !== undefined && { error }),
    evaluatedAt,
    expiresAt: later(evaluatedAt),
  };
}
