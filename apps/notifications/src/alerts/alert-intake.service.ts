import { Injectable, Logger } from '@nestjs/common';
import { type Channel, CHANNELS, isAtLeast, type RiskAlert, type RiskLevel } from '@rp/contracts';
import type { ChannelConfigRecord } from '../channel-configs/notification-config';
import { NotificationConfigRepository } from '../channel-configs/notification-config.repository';
import { SecretBox } from '../channel-configs/secret-box';
import { laneOf } from '../delivery/destination';
import { DestinationLanes } from '../delivery/destination-lanes';
import { NotificationsSettings } from '../settings/notifications-settings';
import { type DeliveryContent, type DeliveryJobData, deliveryJobId } from '../delivery/delivery-job';
import { DeliveryQueue } from '../delivery/delivery-queue';
import type { IntakeOptions, IntakeResult } from './alert';
import { AlertCooldown } from './cooldown';
import { type AlertIntakeRecord, HistoryRecorder } from '../history/history-recorder';

/**
 * Every alert enters here, whatever its source: it picks the wallet's enabled channels that want this level,
 * applies the cooldown per (wallet, pool) and queues one delivery job per (alert, channel configuration).
 */
@Injectable()
export class AlertIntake {
  private readonly logger = new Logger(AlertIntake.name);

  constructor(
    private readonly configs: NotificationConfigRepository,
    private readonly deliveries: DeliveryQueue,
    private readonly box: SecretBox,
    private readonly cooldown: AlertCooldown,
    private readonly lanes: DestinationLanes,
    private readonly config: NotificationsSettings,
    private readonly history: HistoryRecorder,
  ) {}

  async submit(alert: RiskAlert, options: IntakeOptions): Promise<IntakeResult> {
    const taken = await this.take(alert, options);
    await this.history.recordAlerts([{ alert, source: options.source, ...taken }]);
    return result(
      alert.alertId,
      taken.queued.map((c) => c.channel),
      new Set(taken.suppressed.map((c) => c.channel)),
    );
  }

  /** The configurations an alert is queued to, and those that hold it back (level below their minimum, cooldown). */
  private async take(alert: RiskAlert, options: IntakeOptions): Promise<Omit<AlertIntakeRecord, 'alert' | 'source'>> {
    const wanted = options.channels ? new Set<Channel>(options.channels) : undefined;
    const enabled = (await this.configs.enabledFor(alert.address)).filter((c) => !wanted || wanted.has(c.channel));
    const eligible = enabled.filter((c) => isAtLeast(alert.riskLevel, options.minRiskLevel ?? c.minRiskLevel));
    const below = enabled.filter((c) => !eligible.includes(c));
    if (eligible.length === 0) return { queued: [], suppressed: below };

    const force = options.bypassCooldown === true || options.source === 'test';
    const { address, poolAddress, riskLevel, alertId, triggers } = alert;
    if (!(await this.cooldown.pass(address, poolAddress, riskLevel, force, alertId, triggers))) {
      return { queued: [], suppressed: enabled };
    }
    const queued = await this.queue(alert.alertId, eligible, { alert, source: options.source });
    this.logger.debug(`alert ${alert.alertId} (${alert.riskLevel}, ${options.source}) queued for ${queued} channel(s)`);
    return { queued: eligible, suppressed: below };
  }

  /** Queues one alert to one configuration, whatever its level and the cooldown (the test message). */
  async queueTo(alert: RiskAlert, config: ChannelConfigRecord, source: IntakeOptions['source']): Promise<string> {
    await this.queue(alert.alertId, [config], { alert, source });
    return deliveryJobId(alert.alertId, config.channel, config.id);
  }

  /**
   * Queues what `content` carries (an alert, or an account's event) to each configuration: one job per
   * configuration, its id derived from `id` (the same content twice is one job). Lanes first: a worker that picks a
   * job up finds it in its lane, behind the jobs taken in before it. (A lane entry whose job was never added is
   * dropped by the next job of the lane.) Returns how many jobs were queued.
   */
  async queue(id: string, configs: readonly ChannelConfigRecord[], content: DeliveryContent): Promise<number> {
    const queuedAt = Date.now();
    const jobs = configs.map((c) => {
      const data: DeliveryJobData = { ...content, channel: c.channel, configId: c.id, queuedAt, lane: this.laneOf(c) };
      return { jobId: deliveryJobId(id, c.channel, c.id), data };
    });
    await Promise.all(jobs.map((job) => this.lanes.enqueue(job.data.lane, job.jobId)));
    await this.deliveries.addBulk(jobs);
    return jobs.length;
  }

  /** The cooldown of (wallet, key) at `level` (see `AlertCooldown`); `id` passes again once it started it. */
  cooldownPasses(wallet: string, key: string, level: RiskLevel, force: boolean, id: string): Promise<boolean> {
    return this.cooldown.pass(wallet, key, level, force, id);
  }

  private laneOf(config: ChannelConfigRecord): string {
    return laneOf(config, this.box, this.config.MESSENGER_BOT_TOKEN);
  }
}

function result(alertId: string, queued: Channel[], suppressed: Set<Channel>): IntakeResult {
  const queuedSet = new Set(queued);
  return {
    alertId,
    queued: CHANNELS.filter((c) => queuedSet.has(c)),
    suppressed: CHANNELS.filter((c) => suppressed.has(c) && !queuedSet.has(c)),
  };
}
