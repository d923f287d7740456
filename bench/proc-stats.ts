/**
 * A process's CPU time and memory as Linux accounts them (/proc/<pid>/stat and /proc/<pid>/status), for the bench's
 * CPU per request (bench-cli.ts) and the capacity run's memory and CPU per app (capacity.ts). Hand-written: the
 * packages that read /proc (pidusage, systeminformation) shell out or poll on their own clock, and these are two
 * fields of two files.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** utime + stime of a process in clock ticks; undefined once it is gone. */
export function readTicks(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the whole line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** The clock ticks per second /proc counts in (getconf CLK_TCK; 100 when unknown). */
export function ticksPerSecond(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

export interface ProcessMemory {
  /** Resident set size now (VmRSS), bytes. */
  rss: number;
  /** The highest resident set size since the process started (VmHWM, the kernel's high-water mark), bytes. */
  hwm: number;
}

/** VmRSS and VmHWM of a process (what a memory cgroup's OOM killer weighs); undefined once it is gone. */
export function readMemory(pid: number | undefined): ProcessMemory | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => {
      const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
      return match ? Number(match[1]) * 1024 : NaN;
    };
    const memory = { rss: kib('VmRSS'), hwm: kib('VmHWM') };
    return Number.isNaN(memory.rss) || Number.isNaN(memory.hwm) ? undefined : memory;
  } catch {
    return undefined;
  }
}
