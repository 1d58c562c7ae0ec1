import { Histogram, Registry } from 'prom-client';
import { DurationHistogram } from './duration-histogram';
import { HTTP_DURATION_BUCKETS, HttpMetrics } from './http-metrics';

/** Observations that land below, on, between and above the bounds, and values the exposition must print as-is. */
const VALUES = [0, 0.0004, 0.001, 0.0011, 0.003, 0.25, 0.2500001, 0.7, 1, 9.99, 10, 10.5, 123.456, 1e-9];

function registries(): { ours: Registry; theirs: Registry } {
  const ours = new Registry();
  const theirs = new Registry();
  for (const registry of [ours, theirs]) registry.setDefaultLabels({ app: 'example' });
  return { ours, theirs };
}

describe('DurationHistogram', () => {
  it("exposes exactly what prom-client's Histogram exposes for the same observations (text and JSON)", async () => {
    const { ours, theirs } = registries();
    const mine = new DurationHistogram('x_seconds', 'help text', ['method', 'route'], HTTP_DURATION_BUCKETS, ours);
    const reference = new Histogram({
      name: 'x_seconds',
      help: 'help text',
      labelNames: ['method', 'route'],
      buckets: [...HTTP_DURATION_BUCKETS],
      registers: [theirs],
    });
    VALUES.forEach((value, i) => {
      const labels = { method: i % 2 ? 'GET' : 'POST', route: i % 3 ? '/a' : '/b' };
      mine.labels(labels).observe(value);
      reference.labels(labels).observe(value);
    });

    expect(await ours.metrics()).toEqual(await theirs.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(
      (await theirs.getMetricsAsJSON()).map((metric) => ({
        ...metric,
        values: (metric as { values: Record<string, unknown>[] }).values.map(
          ({ exemplar: _exemplar, ...value }) => value,
        ),
      })),
    );
    expect(await ours.metrics()).toContain('x_seconds_bucket{le="0.001",app="example",method="POST",route="/b"} 1');
  });

  it('keeps one series per label set, counts each value once and ignores values that are not numbers', async () => {
    const { ours } = registries();
    const histogram = new DurationHistogram('y_seconds', 'help', ['route'], [1, 2], ours);
    const series = histogram.labels({ route: '/r' });
    expect(histogram.labels({ route: '/r' })).toBe(series);
    series.observe(0.5);
    series.observe(1.5);
    series.observe(3);
    series.observe(Number.NaN);
    series.observe(Number.POSITIVE_INFINITY);

    const text = await ours.metrics();
    expect(text).toContain('y_seconds_bucket{le="1",app="example",route="/r"} 1');
    expect(text).toContain('y_seconds_bucket{le="2",app="example",route="/r"} 2');
    expect(text).toContain('y_seconds_bucket{le="+Inf",app="example",route="/r"} 3');
    expect(text).toContain('y_seconds_sum{app="example",route="/r"} 5');
    expect(text).toContain('y_seconds_count{app="example",route="/r"} 3');

    ours.resetMetrics();
    expect(await ours.metrics()).not.toContain('y_seconds_count');
  });

  it('refuses a label named le, which the exposition reserves for the bucket bound', () => {
    expect(() => new DurationHistogram('z_seconds', 'help', ['le'], [1], new Registry())).toThrow(/reserved/);
  });
});

describe('HttpMetrics', () => {
  it('records one answered request per call under its method, route template and status', async () => {
    const registry = new Registry();
    const metrics = new HttpMetrics(registry);
    metrics.record('GET', 200, '/api/v1/keys/*', 0.002);
    metrics.record('GET', 200, '/api/v1/keys/*', 0.02);
    metrics.record('GET', 429, '/api/v1/keys/*', 0.0005);

    const text = await registry.metrics();
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toContain(
      'http_request_duration_seconds_bucket{le="0.0025",method="GET",route="/api/v1/keys/*",status_code="200"} 1',
    );
    expect(text).toContain(
      'http_request_duration_seconds_count{method="GET",route="/api/v1/keys/*",status_code="200"} 2',
    );
    expect(text).toContain(
      'http_request_duration_seconds_count{method="GET",route="/api/v1/keys/*",status_code="429"} 1',
    );
  });
});
