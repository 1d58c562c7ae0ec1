import type { Timing } from './stats';
import { table } from './stats';

/** The gateway bench's rounds and their report (gateway.bench.ts). */

export type Target = 'direct' | 'floor' | 'gateway' | 'slowGateway' | 'twinGateway';

export interface Round {
  latency: Record<Target, Timing>;
  rps: Record<Target, number>;
  /**
   * CPU microseconds per answered call over each target's throughput phase (`/proc/<pid>/stat`): of the target's
   * own process (the service itself for `direct`) and of the service behind it. Load on the machine changes how many
   * calls a process gets through, hardly what each one costs, so these compare across runs where throughput cannot.
   */
  cpuPerCall: Record<Target, { process?: number; service?: number }>;
  /** The same over the sequential calls of the latency phase: one call at a time, nothing shared between calls. */
  cpuPerSequentialCall: Record<Target, { process?: number; service?: number }>;
  /** The gateway's garbage collections over the round, from its own `/metrics` (ADR 037). */
  gatewayGc: GcCounts;
}

/** Garbage collections of a process by kind, and seconds spent in them, from prom-client's `nodejs_gc_*` metrics. */
export interface GcCounts {
  /** Mark-compacts: a few at boot; more while serving means per-call garbage reaches the old generation. */
  major: number;
  minor: number;
  seconds: number;
}

/** The GC counters an app exposes on `/metrics` (prom-client's default `nodejs_gc_duration_seconds`). */
export async function gcCounts(url: string): Promise<GcCounts> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const count = (kind: string) =>
    Number(
      new RegExp(`^nodejs_gc_duration_seconds_count\\{[^}]*kind="${kind}"[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0,
    );
  const seconds = [...text.matchAll(/^nodejs_gc_duration_seconds_sum\{[^}]*\} ([\d.e+-]+)/gm)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );
  return { major: count('major'), minor: count('minor'), seconds };
}

/** What happened between two readings of `gcCounts`. */
export function gcBetween(before: GcCounts, after: GcCounts): GcCounts {
  return {
    major: after.major - before.major,
    minor: after.minor - before.minor,
    seconds: after.seconds - before.seconds,
  };
}

/** How the throughput phase was run, for the report's labels. */
export interface PhaseSettings {
  concurrency: number;
  seconds: number;
  sliceSeconds: number;
}

/**
 * The order of the targets' turns in slice `slice`: the first target (the service called directly) first, then the
 * others in their order in even slices and in reverse in odd ones. A turn's rate depends on the turn before it (what
 * that turn left behind: the client's and the service's garbage, a busier service after the direct calls), and with
 * one fixed order (direct, floor, gateway, before 2026-11-26 21:00 UTC) the floor always came after the direct calls
 * and the gateway always after the floor. Alternating gives the floor and the gateway each predecessor equally often.
 */
export function turnOrder<T>(targets: readonly T[], slice: number): T[] {
  const [first, ...rest] = targets;
  if (first === undefined) return [];
  return [first, ...(slice % 2 === 0 ? rest : [...rest].reverse())];
}

/** Microseconds per call of what `cpuDuring` measured over `calls` calls. */
export function perCall(cpu: { process?: number; service?: number }, calls: number) {
  return {
    process: cpu.process === undefined ? undefined : cpu.process / calls,
    service: cpu.service === undefined ? undefined : cpu.service / calls,
  };
}

const micros = (value: number | undefined) => (value === undefined ? 'n/a' : value.toFixed(0));

export function roundReport(round: Round, index: number, phase: PhaseSettings): string {
  const { latency, rps, cpuPerCall: cpu, cpuPerSequentialCall: sequential } = round;
  const aboveFloor = (of: Round['cpuPerCall']) =>
    of.gateway.process !== undefined && of.floor.process !== undefined
      ? of.gateway.process - of.floor.process
      : undefined;
  const pct = (value: number) => `${(value * 100).toFixed(1)} %`;
  return [
    `Round ${index + 1}`,
    '',
    table([latency.direct, latency.floor, latency.gateway]),
    '',
    '| latency percentiles, ms | p50 | p90 | p99 | p99.9 |',
    '|---|---|---|---|---|',
    ...(['direct', 'floor', 'gateway'] as const).map(
      (t) => `| ${t} | ${latency[t].medianMs} | ${latency[t].p90Ms} | ${latency[t].p99Ms} | ${latency[t].p999Ms} |`,
    ),
    '',
    '| measurement | value |',
    '|---|---|',
    `| throughput direct / floor / gateway (${phase.concurrency} concurrent, ${phase.seconds} s each in ${phase.sliceSeconds} s turns) | ${rps.direct.toFixed(0)} / ${rps.floor.toFixed(0)} / ${rps.gateway.toFixed(0)} req/s |`,
    `| **gateway / floor** (target >= 90 %) | **${pct(rps.gateway / rps.floor)}** |`,
    `| gateway / direct | ${pct(rps.gateway / rps.direct)} |`,
    `| floor / direct | ${pct(rps.floor / rps.direct)} |`,
    `| **added by the gateway, p50 / p99** (targets <= 0.5 / 1.5 ms) | **${(latency.gateway.medianMs - latency.direct.medianMs).toFixed(2)} / ${(latency.gateway.p99Ms - latency.direct.p99Ms).toFixed(2)} ms** |`,
    `| added by the floor, p50 / p99 | ${(latency.floor.medianMs - latency.direct.medianMs).toFixed(2)} / ${(latency.floor.p99Ms - latency.direct.p99Ms).toFixed(2)} ms |`,
    `| CPU per call, µs: floor process / gateway process (throughput phase) | ${micros(cpu.floor.process)} / ${micros(cpu.gateway.process)} |`,
    `| **gateway above the floor, CPU µs per call** (throughput phase) | **${micros(aboveFloor(cpu))}** |`,
    `| CPU per call of the service, µs: direct / behind the floor / behind the gateway | ${micros(cpu.direct.service)} / ${micros(cpu.floor.service)} / ${micros(cpu.gateway.service)} |`,
    `| CPU per sequential call, µs: floor process / gateway process (latency phase) | ${micros(sequential.floor.process)} / ${micros(sequential.gateway.process)} |`,
    `| **gateway above the floor, CPU µs per sequential call** | **${micros(aboveFloor(sequential))}** |`,
    `| gateway garbage collections over the round: mark-compacts / scavenges, ms in all | ${round.gatewayGc.major} / ${round.gatewayGc.minor}, ${(round.gatewayGc.seconds * 1000).toFixed(0)} ms |`,
    ...(rps.twinGateway === undefined
      ? []
      : [
          `| **a second, identical gateway: twin / gateway** (the bench's repeatability) | **${pct(rps.twinGateway / rps.gateway)}** |`,
          `| twin gateway: / floor; CPU µs per call, throughput / sequential | ${pct(rps.twinGateway / rps.floor)}; ${micros(cpu.twinGateway.process)} / ${micros(sequential.twinGateway.process)} |`,
        ]),
    ...(rps.slowGateway === undefined
      ? []
      : [
          `| gateway with FORWARD_FAST_PATH=false: req/s, / floor | ${rps.slowGateway.toFixed(0)}, ${pct(rps.slowGateway / rps.floor)} |`,
          `| gateway with FORWARD_FAST_PATH=false: CPU µs per call, throughput / sequential | ${micros(cpu.slowGateway.process)} / ${micros(sequential.slowGateway.process)} |`,
          `| **the fast path's saving, gateway CPU µs per call**, throughput / sequential | **${micros(saving(cpu))} / ${micros(saving(sequential))}** |`,
        ]),
  ].join('\n');
}

function saving(of: Round['cpuPerCall']): number | undefined {
  const slow = of.slowGateway?.process;
  const fast = of.gateway.process;
  return slow === undefined || fast === undefined ? undefined : slow - fast;
}
