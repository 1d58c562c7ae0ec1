import { Injectable, Logger } from '@nestjs/common';
import { type Channel, ErrorCode } from '@rp/contracts';
import { ApiError } from '@rp/platform';
import { DeliveryQueue } from '../delivery/delivery-queue';
import { DestinationLanes } from '../delivery/destination-lanes';
import { type DeadLetterRecord, type DeadLetterView, deadLetterView } from '../delivery/dead-letter';
import { DeadLetterRepository } from '../delivery/dead-letter.repository';

export const DLQ_LATEST = 50;

export interface DlqStatus {
  success: true;
  total: number;
  countsByChannel: Record<Channel, number>;
  oldest: DeadLetterView | null;
  latest: DeadLetterView[];
  timestamp: string;
}

/** `GET /dlq` and the re-drives: a re-driven entry is queued again under its original job id. */
@Injectable()
export class DlqService {
  private readonly logger = new Logger(DlqService.name);

  constructor(
    private readonly entries: DeadLetterRepository,
    private readonly deliveries: DeliveryQueue,
    private readonly lanes: DestinationLanes,
  ) {}

  async status(): Promise<DlqStatus> {
    const [countsByChannel, oldest, latest] = await Promise.all([
      this.entries.countsByChannel(),
      this.entries.oldest(),
      this.entries.latest(DLQ_LATEST),
    ]);
    const total = Object.values(countsByChannel).reduce((sum, n) => sum + n, 0);
    return {
      success: true,
      total,
      countsByChannel,
      oldest: oldest ? deadLetterView(oldest) : null,
      latest: latest.map(deadLetterView),
      timestamp: new Date().toISOString(),
    };
  }

  async redriveOne(id: string): Promise<{ success: true; redriven: string[]; timestamp: string }> {
    const entry = await this.entries.get(id);
    if (!entry) throw new ApiError(404, ErrorCode.NOT_FOUND, `No DLQ entry ${id}`);
    await this.redrive(entry);
    return { success: true, redriven: [id], timestamp: new Date().toISOString() };
  }

  async redriveAll(channel?: Channel): Promise<{ success: true; redriven: string[]; timestamp: string }> {
    const redriven: string[] = [];
    for (const entry of await this.entries.all(channel)) {
      await this.redrive(entry);
      redriven.push(entry.id);
    }
    return { success: true, redriven, timestamp: new Date().toISOString() };
  }

  private async redrive(entry: DeadLetterRecord): Promise<void> {
    const queue = this.deliveries.queue;
    const previous = await queue.getJob(entry.id);
    if (previous) await previous.remove();
    await this.lanes.forget(entry.id);
    const data = {
      ...entry.job,
      queuedAt: Date.now(),
      firstAttemptAt: undefined,
      attemptsBefore: undefined,
      redriven: (entry.job.redriven ?? 0) + 1,
    };
    await this.lanes.enqueue(data.lane, entry.id);
    await this.deliveries.add(entry.id, data);
    await this.entries.remove(entry.id);
    this.logger.log(`DLQ entry ${entry.id} (${entry.channel}) re-driven`);
  }
}
