import type * as PromClient from 'prom-client';
import type { Gauge, Histogram, Registry } from 'prom-client';
import type { EndpointView } from './endpoint-pool';

export const RPC_DURATION_METRIC = 'ledger_rpc_request_duration_seconds';
export const RPC_ENDPOINT_METRIC = 'ledger_rpc_endpoint_in_use';
const ENDPOINT_HELP = 'Ledger RPC endpoints by origin: 1 for the one calls go to now, 0 for the others';

/** Where the endpoint gauge reads from: every client that shares a registry adds its endpoints here. */
const endpointSources = new WeakMap<Registry, Set<() => readonly EndpointView[]>>();

/** 1 for an origin some client uses now, 0 for an origin only known (several clients may share a registry). */
function inUseByOrigin(views: readonly EndpointView[]): Map<string, number> {
  const byOrigin = new Map<string, number>();
  for (const view of views) byOrigin.set(view.origin, Math.max(byOrigin.get(view.origin) ?? 0, view.inUse ? 1 : 0));
  return byOrigin;
}

/** The endpoint gauge in the text exposition format, for an app without prom-client (the agent). */
export function endpointGaugeText(views: readonly EndpointView[]): string {
  const lines = [`# HELP ${RPC_ENDPOINT_METRIC} ${ENDPOINT_HELP}.`, `# TYPE ${RPC_ENDPOINT_METRIC} gauge`];
  for (const [origin, value] of inUseByOrigin(views)) lines.push(`${RPC_ENDPOINT_METRIC}{origin="${origin}"} ${value}`);
  return `${lines.join('\n')}\n`;
}

export type RpcOutcome = 'success' | 'timeout' | 'unreachable' | 'rejected' | 'try-again-later' | 'stale' | 'error';
type Labels = 'method' | 'endpoint' | 'outcome';

/** Duration of each RPC attempt by method, endpoint origin and outcome. */
export class RpcMetrics {
  private readonly duration: Histogram<Labels>;

  constructor(registry: Registry, endpoints?: () => readonly EndpointView[]) {
    this.duration = RpcMetrics.histogramIn(registry);
    if (endpoints) RpcMetrics.endpointGaugeIn(registry).add(endpoints);
  }

  /** The in-use gauge of the registry, read at scrape time from every client registered with it. */
  private static endpointGaugeIn(registry: Registry): Set<() => readonly EndpointView[]> {
    const known = endpointSources.get(registry);
    if (known && registry.getSingleMetric(RPC_ENDPOINT_METRIC)) return known;
    const { Gauge } = require('prom-client') as typeof PromClient;
    const sources = new Set<() => readonly EndpointView[]>();
    endpointSources.set(registry, sources);
    new Gauge({
      name: RPC_ENDPOINT_METRIC,
      help: ENDPOINT_HELP,
      labelNames: ['origin'],
      registers: [registry],
      collect(this: Gauge<'origin'>) {
        this.reset();
        for (const [origin, value] of inUseByOrigin([...sources].flatMap((source) => source()))) {
          this.set({ origin }, value);
        }
      },
    });
    return sources;
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
