import { Injectable } from '@nestjs/common';
import type { Channel } from '@rp/contracts';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DeadLetterRepository } from './dead-letter.repository';
import { DeliveryQueue } from './delivery-queue';

export type DeliveryOutcome = 'delivered' | 'retried' | 'rate_limited' | 'dead_lettered' | 'skipped' | 'migrated';

/** Deliveries by channel and outcome, intake-to-delivered latency, queue depth and DLQ size. */
@Injectable()
export class DeliveryMetrics {
  private readonly deliveries: Counter<'channel' | 'outcome'>;
  private readonly latency: Histogram<'channel'>;

  constructor(registry: Registry, queue: DeliveryQueue, dlq: DeadLetterRepository) {
    this.deliveries = new Counter({
      name: 'notifications_deliveries_total',
      help: 'Delivery attempts by channel and outcome',
      labelNames: ['channel', 'outcome'],
      registers: [registry],
    });
    this.latency = new Histogram({
      name: 'notifications_delivery_latency_seconds',
      help: 'From alert intake to delivered, by channel',
      labelNames: ['channel'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60],
      registers: [registry],
    });
    new Gauge({
      name: 'notifications_queue_depth',
      help: 'Delivery jobs waiting, delayed or running',
      registers: [registry],
      async collect() {
        this.set(await queue.depth().catch(() => -1));
      },
    });
    new Gauge({
      name: 'notifications_dlq_size',
      help: 'Entries in the dead letter queue, by channel',
      labelNames: ['channel'],
      registers: [registry],
      async collect() {
        const counts = await dlq.countsByChannel().catch(() => undefined);
        if (!counts) return;
        for (const [channel, count] of Object.entries(counts)) this.set({ channel }, count);
      },
    });
  }

  count(channel: Channel, outcome: DeliveryOutcome): void {
    this.deliveries.inc({ channel, outcome });
  }

  delivered(channel: Channel, queuedAt: number): void {
    this.deliveries.inc({ channel, outcome: 'delivered' });
    this.latency.observe({ channel }, Math.max(0, Date.now() - queuedAt) / 1000);
  }
}
