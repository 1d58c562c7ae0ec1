import { ValidateIf } from 'class-validator';
import type { RiskConfigLevels } from './risk-config';
import { IsLedgerAccountAddress, IsRiskLevel } from '../validation/ledger-validators';
import type { RiskAlert } from './risk-alert';
import type { AlertTrigger } from './risk-level';

/** Error codes of the risk routes (RMS) and the admin trigger. */
export const RiskErrorCode = {
  /** The ledger RPC failed or did not answer (502). */
  LEDGER_UNAVAILABLE: 'LEDGER_UNAVAILABLE',
  /** `CONTRACT_RPC_URL` or `RMS_POOLS` is not set (503). */
  NOT_CONFIGURED: 'NOT_CONFIGURED',
  /** A watched pool's oracle has no usable price for an asset the wallet holds (502). */
  PRICE_UNAVAILABLE: 'PRICE_UNAVAILABLE',
  /** A pool in `RMS_POOLS` is not a Blend pool (503: the operator's setting is wrong). */
  POOL_NOT_FOUND: 'POOL_NOT_FOUND',
} as const;
export type RiskErrorCode = (typeof RiskErrorCode)[keyof typeof RiskErrorCode];

/** `GET /api/v1/rms/risk/:walletAddress`. */
export class RiskWalletParams {
  @IsLedgerAccountAddress()
  walletAddress!: string;
}

/**
 * One position of a wallet in a watched pool: the alert's fields without `alertId`; without debt there is no
 * health factor (`null`), and the triggers are the evaluator's own.
 */
export interface RiskPositionView extends Omit<RiskAlert, 'alertId' | 'healthFactor' | 'triggers'> {
  /** Blend's health factor (7 decimals as a number); `null` without debt. */
  healthFactor: number | null;
  triggers: AlertTrigger[];
}

/** The price drops of `healthFactorIf`, in percent, as its keys. */
export const PRICE_DROP_SCENARIOS = ['-5', '-10', '-20', '-30'] as const;
export type PriceDropScenario = (typeof PRICE_DROP_SCENARIOS)[number];

/**
 * What the risk answer adds to the alert fields of a position: where it is liquidated (docs/notifications.md,
 * "Liquidation prices and scenarios", gives the rounding).
 */
export interface RiskPositionScenarios {
  /**
   * Collateral asset (C-address) -> the highest oracle price (a decimal string in the oracle's decimals) at which the
   * health factor is at most 1.0, everything else unchanged; `null` when no price of that asset alone brings it there.
   */
  liquidationPrices: Record<string, string | null>;
  /** The health factor with every collateral asset's price down by that percent together; `null` without debt. */
  healthFactorIf: Record<PriceDropScenario, number | null>;
  /** The smallest uniform collateral price drop, in percent, at which the health factor is at most 1.0. */
  liquidationBuffer: number | null;
}

/** One position in the risk answer: the alert fields and the liquidation scenarios. */
export type RiskPosition = RiskPositionView & RiskPositionScenarios;

export interface RiskResponse {
  success: true;
  walletAddress: string;
  /** One entry per watched pool (`RMS_POOLS`) where the wallet has collateral or debt. */
  positions: RiskPosition[];
  /** The level bounds `riskLevel` was judged by: the caller's risk configuration of the wallet, else the defaults. */
  levels: RiskConfigLevels;
  evaluatedAt: string;
  timestamp: string;
}

/** `POST /api/v1/rms/notifications/trigger` (header `x-admin-key`). */
export class TriggerRequest {
  /** One wallet; every wallet with an enabled channel when omitted. */
  @ValidateIf((_object: unknown, value: unknown) => value !== undefined)
  @IsLedgerAccountAddress()
  walletAddress?: string;

  /** Either vocabulary; when given it replaces each channel's own minimum for this send. */
  @ValidateIf((_object: unknown, value: unknown) => value !== undefined)
  @IsRiskLevel()
  minRiskLevel?: string;
}

export interface TriggerResponse {
  success: true;
  /** Wallets evaluated. */
  evaluated: number;
  /** Alerts raised: positions with debt at or above the minimum level. */
  alerts: number;
  /** Deliveries queued, one per (alert, channel). */
  queued: number;
}
