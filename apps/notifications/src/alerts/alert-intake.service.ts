import { Injectable, Logger } from '@nestjs/common';
import { type Channel, CHANNELS, isAtLeast, type RiskAlert, type RiskLevel } from '@rp/contracts';
import type { ChannelConfigRecord } from '../channel-configs/notification-config';
import { NotificationConfigRepository } from '../channel-configs/notification-config.repository';
import { SecretBox } from '../channel-configs/secret-box';
import { laneOf } from '../delivery/destination';
import { DestinationLanes } from '../delivery/destination-lanes';
import { NotificationsSettings } from '../settings/notifications-settings';
import { type DeliveryContent, type DeliveryJobData, deliveryJobId } from '../delivery/delivery-job';
import { DeliveryQueue, type QueuedDelivery, type QueuedFanOut } from '../delivery/delivery-queue';
import { type FanOutEntry, fanOutJobId } from '../delivery/fan-out-job';
import type { IntakeEntry, IntakeOptions, IntakeOutcome, IntakeResult } from './alert';
import { AlertCooldown, type CooldownQuestion } from './cooldown';
import { type AlertIntakeRecord, HistoryRecorder } from '../history/history-recorder';

/** One alert's channels before the cooldown: those that want its level, and those that do not. */
interface Selection {
  eligible: ChannelConfigRecord[];
  /** The configurations below their minimum level (the history's `suppressed`). */
  below: ChannelConfigRecord[];
  suppressed: Set<Channel>;
  onceKey?: string;
}

/** What one alert (or event) is queued as: its single channel's delivery job, or its fan-out job (ADR 035). */
type DeliveryJob = QueuedDelivery | QueuedFanOut;

/**
 * Every alert enters here, whatever its source: it picks the wallet's enabled channels that want this level,
 * applies the cooldown per (wallet, pool) and queues one job per alert: its fan-out job carrying a delivery per
 * channel configuration, or the delivery job of its only one (ADR 035).
 *
 * Alerts are taken in batches (ADR 028): a batch costs one Redis round trip for every cooldown and once-per-id
 * decision, one for the destination lanes, one `addBulk` for the jobs and one for the once-keys, whatever its size;
 * its outcomes are those of the same alerts taken in one after another, in the batch's order.
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

  /** One alert: a batch of one. */
  async submit(alert: RiskAlert, options: IntakeOptions): Promise<IntakeResult> {
    const [outcome] = await this.submitBatch([{ alert, options }]);
    return outcome.result;
  }

  /**
   * A batch of alerts (the monitor's batch job, the webhook's coalesced requests, the trigger's evaluation): one
   * outcome per alert, in order. Nothing is queued when it fails (Redis, the database): the caller may submit the
   * batch again, the job ids and the cooldown's memory of each alert make that safe.
   */
  async submitBatch(entries: readonly IntakeEntry[]): Promise<IntakeOutcome[]> {
    if (entries.length === 0) return [];
    const channelsOf = await this.enabledByWallet(entries.map((e) => e.alert.address));
    const selections = entries.map((e) => this.select(e, channelsOf.get(e.alert.address) ?? []));
    const decisions = await this.cooldown.decide(
      entries.map(
        ({ alert, options }, i): CooldownQuestion => ({
          wallet: alert.address,
          pool: alert.poolAddress,
          level: alert.riskLevel,
          alertId: alert.alertId,
          triggers: alert.triggers,
          force: options.bypassCooldown === true || options.source === 'test',
          cooldown: selections[i].eligible.length > 0,
          onceKey: selections[i].onceKey,
        }),
      ),
    );
    const queuedAt = Date.now();
    const jobs: DeliveryJob[] = [];
    const onceKeys: string[] = [];
    const records: AlertIntakeRecord[] = [];
    const outcomes = entries.map((entry, i): IntakeOutcome => {
      const { alert, options } = entry;
      const { eligible, below, suppressed, onceKey } = selections[i];
      if (decisions[i] === 'duplicate') {
        return { ...entry, result: { alertId: alert.alertId, queued: [], suppressed: [], duplicate: true } };
      }
      if (onceKey) onceKeys.push(onceKey);
      const held = eligible.length === 0 || decisions[i] === 'held';
      records.push({
        alert,
        source: options.source,
        queued: held ? [] : eligible,
        suppressed: held ? [...below, ...eligible] : below,
      });
      if (eligible.length === 0) return { ...entry, result: result(alert.alertId, [], suppressed) };
      if (decisions[i] === 'held') {
        for (const c of eligible) suppressed.add(c.channel);
        return { ...entry, result: result(alert.alertId, [], suppressed) };
      }
      jobs.push(this.jobOf(alert.alertId, eligible, { alert, source: options.source }, queuedAt));
      const queued = eligible.map((c) => c.channel);
      return { ...entry, result: result(alert.alertId, queued, suppressed) };
    });
    await this.enqueue(jobs);
    // Marked once queued, not before: an intake that died before the queue is taken in when the sender retries.
    await this.cooldown.markTaken(onceKeys);
    await this.history.recordAlerts(records);
    this.logger.debug(`batch of ${entries.length} alert(s): ${jobs.length} delivery job(s) queued`);
    return outcomes;
  }

  /** Queues one alert to one configuration, whatever its level and the cooldown (the test message). */
  async queueTo(alert: RiskAlert, config: ChannelConfigRecord, source: IntakeOptions['source']): Promise<string> {
    await this.queue(alert.alertId, [config], { alert, source });
    return deliveryJobId(alert.alertId, config.channel, config.id);
  }

  /**
   * Queues what `content` carries (an alert, or an account's event) to each configuration: one job (ids derived
   * from `id`: the same content twice is one job). Returns how many deliveries were queued.
   */
  async queue(id: string, configs: readonly ChannelConfigRecord[], content: DeliveryContent): Promise<number> {
    if (configs.length === 0) return 0;
    await this.enqueue([this.jobOf(id, configs, content, Date.now())]);
    return configs.length;
  }

  /** The cooldown of (wallet, key) at `level` (see `AlertCooldown`); `id` passes again once it started it. */
  cooldownPasses(wallet: string, key: string, level: RiskLevel, force: boolean, id: string): Promise<boolean> {
    return this.cooldown.pass(wallet, key, level, force, id);
  }

  /** The enabled configurations of each distinct wallet of a batch, read side by side. */
  private async enabledByWallet(wallets: readonly string[]): Promise<Map<string, ChannelConfigRecord[]>> {
    const distinct = [...new Set(wallets)];
    const found = await Promise.all(distinct.map((wallet) => this.configs.enabledFor(wallet)));
    return new Map(distinct.map((wallet, i) => [wallet, found[i]]));
  }

  private select({ alert, options }: IntakeEntry, enabledOfWallet: readonly ChannelConfigRecord[]): Selection {
    const wanted = options.channels ? new Set<Channel>(options.channels) : undefined;
    const enabled = enabledOfWallet.filter((c) => !wanted || wanted.has(c.channel));
    const eligible = enabled.filter((c) => isAtLeast(alert.riskLevel, options.minRiskLevel ?? c.minRiskLevel));
    const below = enabled.filter((c) => !eligible.includes(c));
    const suppressed = new Set<Channel>(below.map((c) => c.channel));
    const onceKey = options.acceptOnce ? `${this.config.keyPrefix()}webhook-alert:${alert.alertId}` : undefined;
    return { eligible, below, suppressed, onceKey };
  }

  /** The job of `content` to these configurations (one at least): a fan-out job for two or more. */
  private jobOf(
    id: string,
    configs: readonly ChannelConfigRecord[],
    content: DeliveryContent,
    queuedAt: number,
  ): DeliveryJob {
    const entries = configs.map(
      (c): FanOutEntry => ({
        jobId: deliveryJobId(id, c.channel, c.id),
        channel: c.channel,
        configId: c.id,
        lane: this.laneOf(c),
      }),
    );
    if (entries.length > 1) return { jobId: fanOutJobId(id, entries), fanOut: { ...content, queuedAt, entries } };
    const [{ jobId, channel, configId, lane }] = entries;
    const data: DeliveryJobData = { ...content, channel, configId, queuedAt, lane };
    return { jobId, data };
  }

  /**
   * Lanes first: a worker that picks a job up finds its deliveries in their lanes, behind those taken in before
   * them (a lane entry whose job was never added is dropped by the next job of the lane). A job id twice in a
   * batch (an alert taken twice) is one job.
   */
  private async enqueue(jobs: readonly DeliveryJob[]): Promise<void> {
    const distinct = [...new Map(jobs.map((job) => [job.jobId, job])).values()];
    await this.lanes.enqueueMany(
      distinct.flatMap((job) =>
        'fanOut' in job
          ? job.fanOut.entries.map((entry) => ({ lane: entry.lane, jobId: entry.jobId, carrier: job.jobId }))
          : [{ lane: job.data.lane, jobId: job.jobId }],
      ),
    );
    await this.deliveries.addBulk(distinct);
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
