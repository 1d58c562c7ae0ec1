import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type RoundOutcome = 'completed' | 'timed_out' | 'failed';

/** Round duration, wallets watched, positions read from the ledger or the cache, alerts raised. */
@Injectable()
export class MonitorMetrics {
  readonly roundDuration: Histogram<'outcome'>;
  readonly walletsWatched: Gauge;
  readonly positions: Counter<'source'>;
  readonly alerts: Counter<'level'>;
  readonly batches: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.roundDuration = new Histogram({
      name: 'rms_monitor_round_duration_seconds',
      help: 'From a new ledger seen to every batch job of its round finished',
      labelNames: ['outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60],
      registers: [registry],
    });
    this.walletsWatched = new Gauge({
      name: 'rms_monitor_wallets_watched',
      help: 'Wallets with at least one enabled channel, as of the last round',
      registers: [registry],
    });
    this.positions = new Counter({
      name: 'rms_monitor_positions_total',
      help: 'Positions evaluated by where they came from: read from the ledger or re-priced from the cache',
      labelNames: ['source'],
      registers: [registry],
    });
    this.alerts = new Counter({
      name: 'rms_monitor_alerts_total',
      help: 'Alerts the monitor submitted to the intake, by level',
      labelNames: ['level'],
      registers: [registry],
    });
    this.batches = new Counter({
      name: 'rms_monitor_batches_total',
      help: 'Batch jobs by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }
}
