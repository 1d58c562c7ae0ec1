import { Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per app (not prom-client's global one), labelled with the app's name, with process metrics. */
export function createMetricsRegistry(appName: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app: appName });
  collectDefaultMetrics({ register: registry });
  return registry;
}
