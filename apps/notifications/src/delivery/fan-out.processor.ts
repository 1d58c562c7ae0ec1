import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { ChannelConfigRecord } from '../channel-configs/notification-config';
import { NotificationConfigRepository } from '../channel-configs/notification-config.repository';
import type { AlertMessage } from './channels/alert-message';
import { ChannelProviders } from './channels/channel-providers';
import { DeliveryError } from './channels/delivery-error';
import { BACKOFF_BASE_MS, type DeliveryJobData } from './delivery-job';
import { DeliveryMetrics } from './delivery-metrics';
import { DeliveryQueue, type QueuedDelivery } from './delivery-queue';
import { type DeliveryAttempt, DeliverySteps } from './delivery-steps';
import type { Destination } from './destination';
import { DestinationLanes } from './destination-lanes';
import { type FanOutEntry, type FanOutJobData, deliveryOf } from './fan-out-job';

/** A pacing wait this short is waited out in the fan-out job (the per-channel processor's threshold too). */
const SHORT_PACE_MS = 100;
/** Turns asked again after a short pacing wait before the entry is handed over. */
const PACED_TRIES = 3;

/** An entry whose configuration is enabled and has a destination. */
interface Ready {
  entry: FanOutEntry;
  data: DeliveryJobData;
  record: ChannelConfigRecord;
  destination: Destination;
}

/**
 * What a fan-out job does (ADR 035): one read of its configurations, one round trip for every entry's turn, the
 * entries whose turn it is sent side by side, one round trip marking them sent. Every other entry (behind in its
 * lane, paced, its configuration disabled or gone, its send failed) is handed over to its per-channel job, which
 * does the uncommon: retries, waits, the DLQ. A fan-out job retaken after its worker died sends no entry twice that
 * was marked sent (the turn says so) or handed over (its data lists them).
 */
@Injectable()
export class FanOutProcessor {
  constructor(
    private readonly configs: NotificationConfigRepository,
    private readonly providers: ChannelProviders,
    private readonly metrics: DeliveryMetrics,
    private readonly queue: DeliveryQueue,
    private readonly lanes: DestinationLanes,
    private readonly steps: DeliverySteps,
  ) {}

  async process(job: Job<FanOutJobData>): Promise<string> {
    const startedAt = Date.now();
    const handOver: QueuedDelivery[] = [];
    const ready = await this.ready(job.data, handOver);
    const message = this.steps.message(job.data); // the same for every channel: rendered once
    const counts = { sent: 0, skipped: 0 };
    let failure: PromiseRejectedResult | undefined;
    let asking = ready;
    for (let tries = 0; asking.length > 0; tries += 1) {
      const turns = await this.lanes.turns(
        asking.map(({ entry, destination }) => ({ lane: entry.lane, jobId: entry.jobId, paces: destination.paces })),
      );
      const go: Ready[] = [];
      const skipped: Ready[] = [];
      const again: Ready[] = [];
      let wait = 0;
      turns.forEach((turn, i) => {
        const one = asking[i];
        if (turn.kind === 'go') go.push(one);
        else if (turn.kind === 'already-sent') skipped.push(one);
        else if (turn.kind === 'paced' && turn.waitMs <= SHORT_PACE_MS && tries < PACED_TRIES) {
          again.push(one);
          wait = Math.max(wait, turn.waitMs);
        } else
          handOver.push({ jobId: one.entry.jobId, data: one.data, delayMs: turn.kind === 'paced' ? turn.waitMs : 0 });
      });
      const round = await this.sendAll(go, skipped, message, startedAt, handOver);
      counts.sent += round.sent;
      counts.skipped += skipped.length;
      failure ??= round.failure;
      if (again.length > 0) await sleep(wait);
      asking = again;
    }
    await this.handOver(job, handOver);
    if (failure) throw failure.reason;
    return `delivered ${counts.sent}, handed over ${handOver.length}, already sent ${counts.skipped}`;
  }

  /**
   * One round's sends, side by side, each marked sent as soon as it returns (with whatever else the process marks
   * then, ADR 035): a worker that dies after a send's mark never sends it again. Those already sent are marked in
   * the same way. Every send settles before the round ends; the first failure that threw is returned.
   */
  private async sendAll(
    go: readonly Ready[],
    skipped: readonly Ready[],
    message: AlertMessage,
    startedAt: number,
    handOver: QueuedDelivery[],
  ): Promise<{ sent: number; failure?: PromiseRejectedResult }> {
    const sent: Ready[] = [];
    const settled = await Promise.allSettled([
      ...go.map((one) => this.send(one, message, startedAt, sent, handOver)),
      ...skipped.map((one) => this.lanes.sentSoon({ lane: one.entry.lane, jobId: one.entry.jobId })),
    ]);
    for (const { data } of sent) this.steps.delivered(data);
    for (const { data } of skipped) this.metrics.count(data.channel, 'skipped');
    const failure = settled.find((one): one is PromiseRejectedResult => one.status === 'rejected');
    return { sent: sent.length, failure };
  }

  /**
   * The entries to send: those with an enabled configuration (read in one go: they are one wallet's) and a
   * destination. The others are handed over as they are, and so again are those a first run handed over.
   */
  private async ready(job: FanOutJobData, handOver: QueuedDelivery[]): Promise<Ready[]> {
    const handed = new Set(job.handedOver ?? []);
    const wallet = job.event ? job.event.walletAddress : job.alert.address;
    const records = await this.configs.enabledAmong(
      wallet,
      job.entries.map((entry) => entry.configId),
    );
    const ready: Ready[] = [];
    for (const entry of job.entries) {
      const data = deliveryOf(job, entry);
      const record = records.get(entry.configId);
      const destination = record && !handed.has(entry.jobId) ? this.destinationOf(record) : undefined;
      if (record && destination) ready.push({ entry, data, record, destination });
      else handOver.push({ jobId: entry.jobId, data });
    }
    return ready;
  }

  private destinationOf(record: ChannelConfigRecord): Destination | undefined {
    try {
      return this.steps.destination(record);
    } catch {
      return undefined; // its per-channel job dead-letters it with the reason
    }
  }

  /** One entry's send: delivered, or what its failure leads to (a hand-over, or the DLQ). */
  private async send(
    one: Ready,
    message: AlertMessage,
    startedAt: number,
    sent: Ready[],
    handOver: QueuedDelivery[],
  ): Promise<void> {
    try {
      await this.providers.send(one.destination.address, message);
    } catch (error) {
      await this.failed(one, startedAt, handOver, error);
      return;
    }
    await this.lanes.sentSoon({ lane: one.entry.lane, jobId: one.entry.jobId });
    sent.push(one);
  }

  /** A failed send: what it leads to (a hand-over, or the DLQ). */
  private async failed(one: Ready, startedAt: number, handOver: QueuedDelivery[], error: unknown): Promise<void> {
    const data: DeliveryJobData = { ...one.data, firstAttemptAt: startedAt };
    if (error instanceof DeliveryError && error.kind === 'migrated' && error.extra.newChatId) {
      // The configuration follows; its per-channel job sends to the new chat, no attempt spent.
      await this.steps.migrate(one.record, error.extra.newChatId);
      handOver.push({ jobId: one.entry.jobId, data });
      return;
    }
    const attempt: DeliveryAttempt = { jobId: one.entry.jobId, data, attempts: 1, startedAt };
    const next = await this.steps.failed(attempt, one.destination, error);
    if (next.step === 'dead-letter') await this.steps.deadLetter(attempt, next.reason, one.destination.masked);
    else if (next.step === 'wait') handOver.push({ jobId: one.entry.jobId, data, delayMs: next.ms });
    else handOver.push({ jobId: one.entry.jobId, data: { ...data, attemptsBefore: 1 }, delayMs: BACKOFF_BASE_MS });
  }

  /**
   * Hands entries over to their per-channel jobs: written into the fan-out job's data first, so that a retake sends
   * none of them (it adds their jobs again: the same ids, refused while they live).
   */
  private async handOver(job: Job<FanOutJobData>, handOver: readonly QueuedDelivery[]): Promise<void> {
    if (handOver.length === 0) return;
    const handed = new Set([...(job.data.handedOver ?? []), ...handOver.map((one) => one.jobId)]);
    await job.updateData({ ...job.data, handedOver: [...handed] });
    await this.queue.addBulk(handOver);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
