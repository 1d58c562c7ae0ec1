import 'reflect-metadata';
import { IsISO8601, Matches, ValidateIf } from 'class-validator';
import type { Channel } from '../notifications/channel';
import type { AccountEventType } from '../notifications/account-event';
import { IsContractAddress, IsLedgerAccountAddress, IsRiskLevel } from '../validation/ledger-validators';
import type { RiskLevel } from './risk-level';

/** `GET /api/v1/rms/alerts`: newest first, `limit` of them (default and most, ADR 024). */
export const ALERT_HISTORY_DEFAULT_LIMIT = 50;
export const ALERT_HISTORY_MAX_LIMIT = 500;

/** What became of an alert on one channel (DECISIONS.md, Risk and notifications: History). */
export const ALERT_OUTCOMES = ['queued', 'delivered', 'failed', 'suppressed'] as const;
export type AlertOutcome = (typeof ALERT_OUTCOMES)[number];

/** The agent's events that the alert history lists as actions: its closes. */
export const HISTORY_ACTION_TYPES = ['close_sent', 'close_confirmed', 'close_failed'] as const;
export type HistoryActionType = (typeof HISTORY_ACTION_TYPES)[number] & AccountEventType;

function MayBeOmitted(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined);
}

/** 1 to `ALERT_HISTORY_MAX_LIMIT` (500) in decimal: query strings carry text. */
const LIMIT_TEXT = /^(?:[1-9]\d?|[1-4]\d\d|500)$/;

const iso = (field: string) => ({ message: `${field} must be an ISO 8601 timestamp` });

/** `GET /api/v1/rms/alerts?walletAddress=&level=&since=&limit=`. */
export class AlertHistoryQuery {
  @MayBeOmitted()
  @IsLedgerAccountAddress()
  walletAddress?: string;

  /** Alerts at this level or worse; either vocabulary. */
  @MayBeOmitted()
  @IsRiskLevel()
  level?: string;

  @MayBeOmitted()
  @IsISO8601({ strict: true }, iso('since'))
  since?: string;

  @MayBeOmitted()
  @Matches(LIMIT_TEXT, { message: `limit must be a whole number from 1 to ${ALERT_HISTORY_MAX_LIMIT}` })
  limit?: string;
}

/** `GET /api/v1/rms/history/:walletAddress?poolAddress=&from=&to=`. */
export class HealthHistoryQuery {
  @MayBeOmitted()
  @IsContractAddress()
  poolAddress?: string;

  @MayBeOmitted()
  @IsISO8601({ strict: true }, iso('from'))
  from?: string;

  @MayBeOmitted()
  @IsISO8601({ strict: true }, iso('to'))
  to?: string;
}

export interface AlertChannelOutcome {
  channel: Channel;
  outcome: AlertOutcome;
  at: string;
  /** Why a delivery failed (the dead letter's reason). */
  error?: string;
}

export interface AlertHistoryEntry {
  alertId: string;
  walletAddress: string;
  poolAddress: string;
  riskLevel: RiskLevel;
  triggers: string[];
  healthFactor: number;
  evaluatedAt: string;
  /** The caller's own channel configurations of the wallet only. */
  channels: AlertChannelOutcome[];
}

/** A close the agent reported for the wallet (`POST /api/v1/rms/events`). */
export interface HistoryAction {
  eventId: string;
  type: HistoryActionType;
  walletAddress: string;
  poolAddress?: string;
  healthFactorBefore?: number | null;
  healthFactorAfter?: number | null;
  txHash?: string;
  occurredAt: string;
}

export interface AlertHistoryResponse {
  success: true;
  alerts: AlertHistoryEntry[];
  /** Alerts matching the filters, `limit` aside. */
  total: number;
  /** The agent's closes matching `walletAddress` and `since`, newest first, at most `limit`. */
  actions: HistoryAction[];
}

/** How far apart a series' points are: every monitor round, or one rolled-up point per hour or day. */
export const HEALTH_RESOLUTIONS = ['round', 'hour', 'day'] as const;
export type HealthResolution = (typeof HEALTH_RESOLUTIONS)[number];

export interface HealthPoint {
  at: string;
  healthFactor: number | null;
  riskLevel: RiskLevel;
  triggers: string[];
}

export interface HealthSeries {
  poolAddress: string;
  points: HealthPoint[];
}

export interface HealthHistoryResponse {
  success: true;
  walletAddress: string;
  resolution: HealthResolution;
  from: string;
  to: string;
  series: HealthSeries[];
}
