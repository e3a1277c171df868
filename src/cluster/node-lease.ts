/**
 * A node id's lease (`alive:<node>`): one live process per node id. Its value says which process
 * holds it: `<random token> <host> <pid>` (the host: its name and its PID namespace, so that two
 * containers are two hosts). A node that finds its id held by a process of its own host that no
 * longer runs (the crashed process a supervisor restarts, or a restarted container's old self) takes
 * the lease over at once; a lease held elsewhere is waited for, with a line that says so, until it
 * runs out (its holder is dead) or is renewed (its holder runs: refused).
 */
import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { TAKE_OVER_LEASE } from './scripts.js';

/** This machine as a lease names it: the host name and the PID namespace (no spaces). */
function thisHost(): string {
  let ns = '';
  try {
    ns = readlinkSync('/proc/self/ns/pid'); // pid:[4026531836]
  } catch {
    // not Linux: the host name alone
  }
  return `${hostname()}${ns ? `/${ns}` : ''}`.replace(/\s/g, '_');
}

/** A new lease value for this process (also its token for the roles' leases). */
export function leaseToken(pid = process.pid): string {
  return `${randomUUID()} ${thisHost()} ${pid}`;
}

/** The host and pid of a lease value (null: another format, e.g. of an older version). */
export function leaseHolder(value: string): { host: string; pid: number } | null {
  const m = /^\S+ (\S+) (\d+)$/.exec(value);
  return m ? { host: m[1]!, pid: Number(m[2]) } : null;
}

/** Whether a process of this host runs with this pid. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the holder of a lease value is known to be dead: a process of this host (not this one,
 * which holds a new token) that no longer runs, or this very pid (a restarted container).
 */
export function holderIsDead(value: string, host = thisHost(), isRunning = running, ownPid = process.pid): boolean {
  const h = leaseHolder(value);
  if (!h || h.host !== host) return false;
  return h.pid === ownPid || !isRunning(h.pid);
}

export interface LeaseOptions {
  key: string;
  token: string;
  /** The lease's life (ms): a holder that stops renewing it is gone after that. */
  ttlMs: number;
  /** How often a live holder renews it (ms). */
  renewMs: number;
  log: Logger;
}

/**
 * Takes the lease: at once when it is free or its holder is dead on this host; else waits until
 * it runs out. False when its holder renews it meanwhile (a running node holds the id).
 */
export async function takeLease(cmd: Redis, o: LeaseOptions): Promise<boolean> {
  const take = async (): Promise<boolean> => (await cmd.set(o.key, o.token, 'PX', o.ttlMs, 'NX')) !== null;
  let said = false;
  let lastTtl = Infinity;
  // a holder that renews its lease is alive; one that does not is gone by ttl + a renewal at most
  const deadline = Date.now() + o.ttlMs + o.renewMs;
  while (Date.now() <= deadline) {
    if (await take()) return true;
    const held = await cmd.get(o.key);
    if (held === null) continue;
    if (holderIsDead(held)) {
      if ((await TAKE_OVER_LEASE.run(cmd, [o.key], [held, o.token, o.ttlMs])) === 1) {
        o.log.info({ previous: leaseHolder(held)?.pid }, 'cluster: took over the node id from its previous process on this host, which no longer runs');
        return true;
      }
      continue;
    }
    const ttl = await cmd.pttl(o.key);
    if (ttl > lastTtl) return false; // renewed: its holder runs
    lastTtl = ttl;
    if (!said) {
      said = true;
      const h = leaseHolder(held);
      o.log.warn(
        { holder: h ? `pid ${h.pid} on ${h.host}` : 'unknown', waitMs: ttl },
        'cluster: the node id is held by another process (a previous run that ended without leaving?): waiting for its lease to run out',
      );
    }
    await new Promise((r) => setTimeout(r, Math.max(50, Math.min(250, o.renewMs / 4))));
  }
  return false;
}
