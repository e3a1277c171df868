/**
 * `vts serve --workers N --cluster …`: one command runs N worker processes on this machine (Node's
 * `node:cluster`), each a node of the cluster, sharing the listening ports, so that one machine
 * uses all its cores. The primary process only supervises: it prints the listening line once all
 * workers listen, passes SIGTERM/SIGINT on, waits for them to stop, and starts again a worker that
 * dies (a worker that fails before it ever listened stops the whole command instead; the
 * replacement of a worker that served is tried again, later and later, until it serves).
 *
 * Worker n is the node `<node-id>-<n>`, whichever process runs it: a replacement keeps the name
 * of the worker it replaces, and takes the dead one's lease over at once (a process of this host
 * that no longer runs: src/cluster/node-lease.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism, hostname } from 'node:os';
import type { Logger } from 'pino';
import { serveWorkerMetrics } from '../metrics/worker-metrics.js';

export const isPrimary = (): boolean => cluster.isPrimary;
export const isWorker = (): boolean => cluster.isWorker;

/** `--workers`: a count (1–256) or `auto` (one per CPU). */
export function parseWorkers(value: string): number | 'auto' {
  if (value.trim().toLowerCase() === 'auto') return 'auto';
  if (!/^\d{1,3}$/.test(value.trim()) || Number(value) < 1 || Number(value) > 256) throw new Error(`not a number of workers (1-256, or auto): ${value}`);
  return Number(value);
}

export function workerCount(w: number | 'auto' | undefined): number {
  if (w === undefined) return 1;
  return w === 'auto' ? availableParallelism() : w;
}

/** `--node-id` and `--cluster-prefix`: letters, digits, `.`, `_`, `-`. */
export function parseNodeId(value: string): string {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(value)) throw new Error(`not a name of letters, digits, '.', '_' and '-' (at most 64): ${value}`);
  return value;
}

/** This node's name: `--node-id` (with the worker's number in a worker), else host name and pid. */
export function nodeName(given: string | undefined): string {
  const index = process.env.VTS_WORKER_INDEX;
  if (given) return cluster.isWorker && index ? `${given}-${index}` : given;
  return `${hostname()}-${process.pid}`;
}

export interface ListeningLine {
  event: 'listening';
  [port: string]: unknown;
}

/** A worker listens: it tells the primary, which prints the line for all. */
export function reportListening(line: ListeningLine): void {
  process.send?.(line);
}

const STOP_DEADLINE_MS = 6000;
const RESTART_DELAY_MS = 1000;
/** A replacement that fails again is tried again later, up to this long after its failure. */
const MAX_RESTART_DELAY_MS = 30_000;

/**
 * Ends a worker whose command returned (it failed to start, or stopped): its channel to the
 * primary would keep it alive, serving nothing, and the primary would never replace it.
 */
export function endWorker(code: number): void {
  if (cluster.isWorker) process.exit(code);
}

/** The primary: starts and supervises the workers until a signal stops them; never returns normally. */
export function runWorkers(count: number, log: Logger): Promise<void> {
  return new Promise(() => {
    let stopping = false;
    let printed = false;
    const listening = new Map<number, ListeningLine>();
    const workers = new Map<number, Worker>();

    const stop = (signal: string, code: number): void => {
      if (stopping) return;
      stopping = true;
      log.info({ signal, workers: workers.size }, 'stopping the workers');
      for (const w of workers.values()) w.process.kill('SIGTERM');
      setTimeout(() => {
        log.error('the workers took too long to stop: exiting');
        process.exit(1);
      }, STOP_DEADLINE_MS).unref();
      const check = (): void => {
        if (workers.size === 0) process.exit(code);
      };
      check();
      for (const w of workers.values()) w.once('exit', () => setImmediate(check));
    };

    /** Workers that served once: their replacements are tried again until they serve. */
    const served = new Set<number>();
    /** Failed replacements in a row, by worker. */
    const failures = new Map<number, number>();

    const fork = (index: number): void => {
      const w = cluster.fork({ VTS_WORKER_INDEX: String(index) });
      workers.set(index, w);
      w.on('message', (m: unknown) => {
        if (typeof m !== 'object' || m === null || (m as { event?: unknown }).event !== 'listening') return;
        listening.set(index, m as ListeningLine);
        served.add(index);
        failures.delete(index);
        if (!printed && listening.size === count) {
          printed = true;
          process.stdout.write(JSON.stringify({ ...(m as ListeningLine), workers: count }) + '\n');
          log.info({ workers: count }, 'all workers listening');
        } else if (printed) log.info({ worker: index, pid: w.process.pid }, 'a worker was started again and listens');
      });
      w.on('exit', (code, signal) => {
        if (workers.get(index) === w) workers.delete(index);
        if (stopping) return;
        if (!served.has(index)) {
          // it never served: the same would happen again (a port in use, a bad option)
          log.error({ worker: index, code, signal }, 'a worker failed to start: stopping');
          return stop('worker failure', code || 1);
        }
        const failed = !listening.has(index);
        listening.delete(index);
        const n = failed ? (failures.get(index) ?? 0) + 1 : 0;
        failures.set(index, n);
        const delay = Math.min(RESTART_DELAY_MS * 2 ** n, MAX_RESTART_DELAY_MS);
        if (failed) log.error({ worker: index, code, signal }, `a worker failed to start again: trying again in ${delay / 1000} s`);
        else log.error({ worker: index, code, signal }, `a worker died: starting it again in ${delay / 1000} s`);
        setTimeout(() => {
          if (!stopping) fork(index);
        }, delay);
      });
    };

    process.once('SIGTERM', () => stop('SIGTERM', 0));
    process.once('SIGINT', () => stop('SIGINT', 0));
    // each worker loads the TLS certificate again itself; one still starting reads the files anyway
    process.on('SIGHUP', () => {
      for (const [index, w] of workers) if (listening.has(index)) w.process.kill('SIGHUP');
    });
    // a scrape of /metrics reaches one worker, which asks here for the sum of all of them
    serveWorkerMetrics(log);
    for (let i = 1; i <= count; i++) fork(i);
  });
}
