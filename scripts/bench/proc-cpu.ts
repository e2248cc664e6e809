/** CPU time of another process, for benchmarks that report server CPU per request (Linux /proc). */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process (every thread) in µs (/proc/<pid>/stat fields 14 and 15); NaN elsewhere. */
export function cpuMicros(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / clockTicks;
  } catch {
    return Number.NaN;
  }
}
