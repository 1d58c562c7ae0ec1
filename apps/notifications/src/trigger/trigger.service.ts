import { Injectable, Logger } from '@nestjs/common';
import { type RiskLevel, type TriggerResponse, isAtLeast, parseRiskLevel } from '@rp/contracts';
import type { IntakeEntry, IntakeOptions } from '../alerts/alert';
import { AlertIntake } from '../alerts/alert-intake.service';
import { NotificationConfigRepository, type WatchedWallet } from '../channel-configs/notification-config.repository';
import { riskAlert } from '../risk/risk-alert';
import { RiskEvaluator } from '../risk/risk-evaluator';
import { RiskBounds } from '../risk-config/risk-bounds';

export interface TriggerOrder {
  readonly walletAddress?: string;
  readonly minRiskLevel?: string;
}

/**
 * The admin trigger: evaluates one watched wallet or all of them now and sends an alert for every position with
 * debt at or above the minimum, skipping the cooldown. The minimum is the body's `minRiskLevel` (which then also
 * replaces each channel's own) or else the lowest one among the wallet's enabled channels; levels by the wallet's
 * risk configuration, as the monitor judges them.
 */
@Injectable()
export class TriggerService {
  private readonly logger = new Logger(TriggerService.name);

  constructor(
    private readonly evaluator: RiskEvaluator,
    private readonly configs: NotificationConfigRepository,
    private readonly intake: AlertIntake,
    private readonly bounds: RiskBounds,
  ) {}

  async trigger(order: TriggerOrder): Promise<TriggerResponse> {
    const override = order.minRiskLevel === undefined ? undefined : parseRiskLevel(order.minRiskLevel);
    const watched = await this.configs.watchList();
    const targets: WatchedWallet[] =
      order.walletAddress === undefined
        ? watched
        : watched.filter((wallet) => wallet.walletAddress === order.walletAddress);
    const threshold = new Map<string, RiskLevel>(targets.map((w) => [w.walletAddress, override ?? w.minRiskLevel]));
    const bounds = await this.bounds.watched();
    const evaluation = await this.evaluator.evaluate(
      targets.map((wallet) => wallet.walletAddress),
      (wallet) => bounds.get(wallet),
    );
    const options: IntakeOptions = {
      source: 'trigger',
      bypassCooldown: true,
      ...(override && { minRiskLevel: override }),
    };
    const entries: IntakeEntry[] = [];
    for (const position of evaluation.positions) {
      const minimum = threshold.get(position.wallet) ?? 'low';
      const alert = riskAlert(position, evaluation.evaluatedAt);
      if (alert && isAtLeast(alert.riskLevel, minimum)) entries.push({ alert, options });
    }
    const outcomes = await this.intake.submitBatch(entries);
    const alerts = outcomes.length;
    const queued = outcomes.reduce((sum, outcome) => sum + outcome.result.queued.length, 0);
    this.logger.log(`trigger: ${targets.length} wallet(s) evaluated, ${alerts} alert(s), ${queued} delivery(ies)`);
    return { success: true, evaluated: targets.length, alerts, queued };
  }
}
