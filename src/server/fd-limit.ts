/**
 * The process's file-descriptor limit (RLIMIT_NOFILE): every connection holds one descriptor.
 *
 * Node has no setrlimit, and needs none here: node itself raises the soft limit to the hard limit
 * when it starts (PlatformInit in node's src/node.cc, on every POSIX system), before any of vts
 * runs. vts only reads the result (Linux: /proc/self/limits), says it in the start-up log and
 * warns when it is low or was not raised, with what to do: only the hard limit can give more,
 * and only its owner can raise it (systemd `LimitNOFILE=`, `docker run --ulimit nofile=`,
 * `ulimit -Hn` as root).
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';

export interface FdLimit {
  /** null: unlimited. */
  soft: number | null;
  hard: number | null;
}

/** Below this many descriptors a server with many vehicles runs short (a warning at start). */
export const LOW_FD_LIMIT = 4096;

/** The `Max open files` line of a /proc/<pid>/limits text; undefined when there is none. */
export function parseFdLimit(limits: string): FdLimit | undefined {
  const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(limits);
  if (!m) return undefined;
  const value = (v: string): number | null => (v === 'unlimited' ? null : Number(v));
  return { soft: value(m[1]!), hard: value(m[2]!) };
}

/** This process's limit; undefined where /proc is not there (macOS, BSD). */
export function readFdLimit(file = '/proc/self/limits'): FdLimit | undefined {
  try {
    return parseFdLimit(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

const HINT = 'raise the hard limit of open files: LimitNOFILE= in the systemd unit, docker run --ulimit nofile=N:N, or ulimit -Hn N as root';

/** Logs the limit (with the start-up line's fields) and warns when it is low or below the hard limit. */
export function reportFdLimit(log: Logger, limit: FdLimit | undefined = readFdLimit()): void {
  if (!limit) return;
  const { soft, hard } = limit;
  if (soft !== null && (hard === null || soft < hard)) {
    log.warn({ fdLimit: soft, fdHardLimit: hard }, `the open-files soft limit (${soft}) is below the hard limit: start vts with ulimit -n ${hard ?? 'unlimited'}`);
  } else if (soft !== null && soft < LOW_FD_LIMIT) {
    log.warn({ fdLimit: soft, fdHardLimit: hard }, `open files are limited to ${soft}, about as many connections: ${HINT}`);
  } else {
    log.info({ fdLimit: soft, fdHardLimit: hard }, 'open-files limit');
  }
}
