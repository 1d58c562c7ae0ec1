import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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

/**
 * CPU time (user + system) a process has used so far, in microseconds, from `/proc/<pid>/stat` (Linux; `undefined`
 * elsewhere or once the process is gone). Unlike throughput, a process's CPU per call does not depend on how much
 * of the machine other work leaves it, so it can be compared across runs on a busy machine.
 */
export function processCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1_000_000) / clockTicks();
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
