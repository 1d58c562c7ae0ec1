import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

/** Kernel clock ticks per second, the unit of `utime` and `stime` in `/proc/<pid>/stat`. */
let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** Nanoseconds every thread of the process has run, from `/proc/<pid>/task/<tid>/schedstat` (exact, not sampled). */
function scheduledNanos(pid: number): number | undefined {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that ended meanwhile: its time is gone with it (V8's helper threads live as long as the process)
    }
  }
  return Number.isFinite(total) ? total : undefined;
}

/** utime + stime of `/proc/<pid>/stat`, in microseconds (whole clock ticks: 10 ms on most kernels). */
function tickedMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / clockTicks();
}

/**
 * CPU time (user + system, every thread) a process has used so far, in microseconds: from the scheduler's exact
 * run time when the kernel keeps it (`schedstat`), else from `/proc/<pid>/stat`; `undefined` off Linux or once the
 * process is gone. Unlike throughput, what a call costs a process hardly depends on how much of the machine other
 * work leaves it, so it compares across runs on a busy machine.
 */
export function processCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const nanos = scheduledNanos(pid);
    return nanos === undefined ? tickedMicros(pid) : nanos / 1000;
  } catch {
    return undefined;
  }
}

/** CPU microseconds each of `pids` used while `work` ran, and what `work` returned. */
export async function cpuDuring<T, K extends string>(
  pids: Record<K, number | undefined>,
  work: () => Promise<T>,
): Promise<{ result: T; cpuMicros: Partial<Record<K, number>> }> {
  const names = Object.keys(pids) as K[];
  const before = names.map((name) => processCpuMicros(pids[name]));
  const result = await work();
  const cpuMicros: Partial<Record<K, number>> = {};
  names.forEach((name, i) => {
    const start = before[i];
    const end = processCpuMicros(pids[name]);
    if (start !== undefined && end !== undefined) cpuMicros[name] = end - start;
  });
  return { result, cpuMicros };
}
