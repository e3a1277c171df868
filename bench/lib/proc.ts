/** Memory and CPU of processes and of the machine, read from /proc (Linux; USER_HZ is 100). */
import { readdirSync, readFileSync } from 'node:fs';

function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN; // the process is gone
  }
}

/** Resident set size of a process in bytes. */
export const rssOf = (pid: number): number => statusField(pid, 'VmRSS');

/** Peak resident set size of a process so far in bytes. */
export const peakRssOf = (pid: number): number => statusField(pid, 'VmHWM');

/** The fields of /proc/<pid>/stat after the parenthesised command name (which may hold spaces). */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU time (user + system) a process has used so far, in seconds (NaN when it is gone). */
export function cpuSecondsOf(pid: number): number {
  // fields 14 and 15 of the stat line (utime, stime), in clock ticks
  const f = statFields(pid);
  return f ? (Number(f[11]) + Number(f[12])) / 100 : NaN;
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/** The direct children of a process (the workers of `vts serve --workers N`). */
export function childPids(pid: number): number[] {
  return allPids().filter((p) => statFields(p)?.[1] === String(pid));
}

/** The processes whose command name (comm) is `name`, e.g. `redis-server`. */
export function pidsNamed(name: string): number[] {
  return allPids().filter((p) => {
    try {
      return readFileSync(`/proc/${p}/comm`, 'utf8').trim() === name;
    } catch {
      return false;
    }
  });
}

/**
 * CPU seconds so far of each process named `name` (e.g. `redis-server`, `postgres`); the
 * difference of two readings is what they used in between (`cpuUsedSince`).
 */
export function cpuOfNamed(name: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pidsNamed(name)) {
    const cpu = cpuSecondsOf(pid);
    if (!Number.isNaN(cpu)) out.set(pid, cpu);
  }
  return out;
}

/** CPU seconds used between two readings of cpuOfNamed (a process started in between counts whole). */
export function cpuUsedSince(before: Map<number, number>, after: Map<number, number>): number {
  let used = 0;
  for (const [pid, cpu] of after) used += cpu - (before.get(pid) ?? 0);
  return used;
}

/** Busy CPU seconds of the whole machine so far (all cores; /proc/stat). */
export function machineBusySeconds(): number {
  // cpu  user nice system idle iowait irq softirq steal …
  const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + f[7]!) / 100;
}

/**
 * Waits until the machine's busy CPU over a 0.5 s window is at most `share` of one core (the
 * benchmark's own servers are idle then: what is busy is other processes, e.g. someone's tests),
 * for at most `timeoutMs`. Resolves to the share seen last; says on stderr when it waited.
 */
export async function waitForQuiet(share = 0.2, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let said = false;
  for (;;) {
    const before = machineBusySeconds();
    await new Promise((r) => setTimeout(r, 500));
    const busy = (machineBusySeconds() - before) / 0.5;
    if (busy <= share) return busy;
    if (Date.now() > deadline) {
      process.stderr.write(`  (the machine stayed busy: ${Math.round(busy * 100)} % of a core used by other processes; measuring anyway)\n`);
      return busy;
    }
    if (!said) process.stderr.write(`  (waiting for the machine to be quiet: ${Math.round(busy * 100)} % of a core busy)\n`);
    said = true;
  }
}
