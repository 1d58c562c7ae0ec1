import type * as PromClient from 'prom-client';
import type { Histogram, Registry } from 'prom-client';

export const RPC_DURATION_METRIC = 'ledger_rpc_request_duration_seconds';

export type RpcOutcome = 'success' | 'timeout' | 'unreachable' | 'rejected' | 'try-again-later' | 'error';
type Labels = 'method' | 'endpoint' | 'outcome';

/** Duration of each RPC attempt by method, endpoint origin and outcome. */
export class RpcMetrics {
  private readonly duration: Histogram<Labels>;

  constructor(registry: Registry) {
    this.duration = RpcMetrics.histogramIn(registry);
  }

  /** Several clients may share one app registry; prom-client throws on a second registration of a name. */
  private static histogramIn(registry: Registry): Histogram<Labels> {
    // Loaded on first use: the agent, which passes no registry, never loads prom-client (about 2 MB of its memory).
    const { Histogram } = require('prom-client') as typeof PromClient;
    const existing = registry.getSingleMetric(RPC_DURATION_METRIC);
    if (existing instanceof Histogram) return existing as Histogram<Labels>;
    if (existing) throw new Error(`metric ${RPC_DURATION_METRIC} is already registered with another type`);
    return new Histogram({
      name: RPC_DURATION_METRIC,
      help: 'Duration of ledger RPC requests in seconds, by method, endpoint origin and outcome',
      labelNames: ['method', 'endpoint', 'outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
  }

  observe(method: string, endpoint: string, outcome: RpcOutcome, seconds: number): void {
    this.duration.observe({ method, endpoint, outcome }, seconds);
  }
}
