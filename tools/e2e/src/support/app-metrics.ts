import type { AppProcess } from '@rp/dev';

/** One sample of a Prometheus text exposition: `name{label="value",...} 12`. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match || line.startsWith('#')) continue;
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The app's `/metrics`, parsed. */
export async function scrape(app: AppProcess): Promise<MetricSample[]> {
  const answer = await fetch(`${app.url}/metrics`);
  if (answer.status !== 200) throw new Error(`${app.app} /metrics: ${answer.status}`);
  return parseMetrics(await answer.text());
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function total(samples: MetricSample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    .reduce((sum, s) => sum + s.value, 0);
}

/** The value of the one sample named `name`; throws when the app exports none (a 0 must be a reading). */
export function reading(samples: MetricSample[], name: string): number {
  const found = samples.filter((s) => s.name === name);
  if (found.length !== 1) throw new Error(`${found.length} samples named ${name}`);
  return found[0].value;
}

/** Scrapes `app` until `check` holds for what `read` makes of it; the deadline only bounds a failure. */
export async function metricsUntil<T>(
  app: AppProcess,
  read: (samples: MetricSample[]) => T,
  check: (value: T) => boolean,
  what: string,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read(await scrape(app));
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`${app.app}: ${what} not seen within ${timeoutMs} ms; last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
