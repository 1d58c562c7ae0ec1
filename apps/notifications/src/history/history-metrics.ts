import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';

export type HistoryRecordKind = 'alerts' | 'outcomes' | 'readings' | 'actions';

/** The history's writes (one per batch) and what they carried. */
@Injectable()
export class HistoryMetrics {
  readonly writes: Histogram<'record' | 'outcome'>;
  readonly records: Counter<'record'>;

  constructor(registry: Registry) {
    this.writes = new Histogram({
      name: 'notifications_history_write_seconds',
      help: 'History writes (one per intake call, delivery flush, monitor batch job or close) by what they hold',
      labelNames: ['record', 'outcome'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    });
    this.records = new Counter({
      name: 'notifications_history_records_total',
      help: 'Records handed to history writes (alerts with their outcomes, deliveries, readings, closes)',
      labelNames: ['record'],
      registers: [registry],
    });
  }
}
