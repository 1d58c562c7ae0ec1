import type { Registry } from 'prom-client';

/** One series of a `DurationHistogram` (one set of label values): counts per bucket, sum and count. */
export class DurationSeries {
  /** Observations per bucket, not cumulated: `perBucket[i]` counts the values in (bounds[i-1], bounds[i]]. */
  private readonly perBucket: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.perBucket = new Float64Array(bounds.length);
  }

  /** One observation: a few additions and comparisons, nothing allocated. */
  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    this.sum += value;
    this.count += 1;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i += 1) {
      if (value <= bounds[i]) {
        this.perBucket[i] += 1;
        return;
      }
    }
  }

  /** The cumulative count of each bucket (`le` bound), as Prometheus exposes them. */
  cumulative(): number[] {
    let total = 0;
    return Array.from(this.perBucket, (count) => (total += count));
  }
}

interface ExposedValue {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName: string;
}

/**
 * A Prometheus histogram registered in a prom-client `Registry`, exposed exactly as prom-client's `Histogram`
 * exposes one (the same lines, labels and order), for a series observed on every request. prom-client's `observe`
 * validates and hashes the label set and indexes the buckets by their bound turned into a string, a few µs per call
 * under load; here a series is looked up once by its caller and each observation is a few additions
 * (docs/benchmarks.md, the gateway). Series are created on demand and kept; no labels are validated beyond the names.
 */
export class DurationHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, DurationSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    if (labelNames.includes('le')) throw new Error('le is a reserved label name');
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** The series of these label values (every label name given), created on first use. */
  labels(values: Readonly<Record<string, string>>): DurationSeries {
    const key = this.labelNames.map((name) => values[name] ?? '').join('\u0000');
    let series = this.series.get(key);
    if (!series) {
      const labels: Record<string, string> = {};
      for (const name of this.labelNames) {
        if (values[name] !== undefined) labels[name] = values[name];
      }
      series = new DurationSeries(labels, this.bounds);
      this.series.set(key, series);
    }
    return series;
  }

  reset(): void {
    this.series.clear();
  }

  /** What the registry formats as text: the bucket bound as the line's own label, the series' labels shared. */
  getForPromString(): { name: string; help: string; type: string; values: ExposedValue[]; aggregator: string } {
    const values: ExposedValue[] = [];
    for (const series of this.series.values()) {
      const shared = series.labels;
      series
        .cumulative()
        .forEach((count, i) =>
          values.push({
            labels: { le: this.bounds[i] },
            sharedLabels: shared,
            value: count,
            metricName: `${this.name}_bucket`,
          }),
        );
      values.push({
        labels: { le: '+Inf' },
        sharedLabels: shared,
        value: series.count,
        metricName: `${this.name}_bucket`,
      });
      values.push({ labels: {}, sharedLabels: shared, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: shared, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The JSON form (`Registry.getMetricsAsJSON`): each value's labels with the series' own merged in. */
  get(): ReturnType<DurationHistogram['getForPromString']> {
    const data = this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ labels, sharedLabels, value, metricName }) => ({
        labels: { ...labels, ...sharedLabels },
        value,
        metricName,
      })),
    };
  }
}
