import { performance } from 'node:perf_hooks';

export interface Timing {
  readonly name: string;
  readonly runs: number;
  readonly medianMs: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly meanMs: number;
}

/** Runs `task` `warmup` times untimed, then `runs` times one after another, and summarizes the latencies. */
export async function measure(name: string, runs: number, task: () => Promise<unknown>, warmup = 20): Promise<Timing> {
  for (let i = 0; i < warmup; i += 1) await task();
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await task();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    name,
    runs,
    medianMs: round(at(0.5)),
    p90Ms: round(at(0.9)),
    p99Ms: round(at(0.99)),
    p999Ms: round(at(0.999)),
    meanMs: round(samples.reduce((sum, value) => sum + value, 0) / samples.length),
  };
}

export function table(timings: readonly Timing[]): string {
  const rows = timings.map((t) => `| ${t.name} | ${t.runs} | ${t.medianMs} | ${t.p99Ms} | ${t.meanMs} |`);
  return ['| measurement | runs | median ms | p99 ms | mean ms |', '|---|---|---|---|---|', ...rows].join('\n');
}
