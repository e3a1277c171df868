/**
 * What the fleet benchmarks (bench/fleet.ts, bench/fleet-cluster.ts) need around their servers:
 * enough open files for their cars, the servers' descriptors and limits, and the refusals and
 * warnings of a server's log counted by message.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { parseFdLimit, readFdLimit } from '../../src/server/fd-limit.js';

/**
 * The log lines of a server that tell of a refusal or trouble, counted by message (not logins,
 * drops); and its cluster lines (info and above), each with when it came (performance.now ms).
 */
export class LogCounts {
  readonly counts = new Map<string, number>();
  /** `vehicles`: the field of that name, when the line has one (how many a repair put right). */
  readonly cluster: { at: number; msg: string; vehicles?: number }[] = [];
  readonly onLine = (line: string): void => {
    try {
      const ev = JSON.parse(line) as { level?: number; msg?: string; vehicles?: unknown };
      if ((ev.level ?? 0) < 30 || !ev.msg || ROUTINE.has(ev.msg)) return;
      if (ev.msg.startsWith('cluster:')) this.cluster.push({ at: performance.now(), msg: ev.msg, ...(typeof ev.vehicles === 'number' ? { vehicles: ev.vehicles } : {}) });
      if ((ev.level ?? 0) < 40 && !/refus|limit|fail|too many|timeout|closing|not/i.test(ev.msg)) return;
      const msg = ev.msg.replace(/retry in \d+ s/, 'retry in N s');
      this.counts.set(msg, (this.counts.get(msg) ?? 0) + 1);
    } catch {
      /* not JSON */
    }
  };
}
const ROUTINE = new Set(['login', 'disconnected', 'open-files limit', 'vts started', 'shutting down', 'stopped']);

/**
 * This process may hold `needed` descriptors, better `wanted` (more: e.g. for the servers it
 * starts afterwards, which inherit its limits; node raises their soft limit to the hard one when
 * it starts: src/server/fd-limit.ts). Raises its soft limit with `prlimit` when it must, and its
 * hard limit when that is lower (which takes CAP_SYS_RESOURCE, which root in a container may not
 * have; never lowered). Throws, saying how, when it cannot get `needed`.
 */
export function ensureFds(needed: number, who = 'fleet', wanted = needed): void {
  const raise = (n: number): void => {
    const have = readFdLimit();
    if ((have?.soft ?? Infinity) >= n) return;
    const hard = have?.hard === null || have?.hard === undefined ? 'unlimited' : String(Math.max(have.hard, n));
    try {
      execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${n}:${hard}`], { stdio: 'ignore' });
    } catch {
      /* said below */
    }
  };
  raise(wanted);
  raise(needed);
  const now = readFdLimit()?.soft ?? Infinity;
  if (now < needed) throw new Error(`${who}: ${needed} open files needed, the limit is ${now}: run with ulimit -n ${needed} (the hard limit: ulimit -Hn, as root with CAP_SYS_RESOURCE)`);
}

/** The open descriptors of a process. */
export const fdsOf = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/** A process's soft limit of open files (null: unlimited). */
export const fdLimitOf = (pid: number): number | null => parseFdLimit(readFileSync(`/proc/${pid}/limits`, 'utf8'))?.soft ?? null;
