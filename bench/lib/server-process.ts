/**
 * Runs `vts serve` (the built dist/) as a child process and reads its memory use and CPU time;
 * with `--workers N` those of the primary and its workers added up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { childPids, cpuSecondsOf, peakRssOf, rssOf } from './proc.js';

export interface ServerProcess {
  child: ChildProcess;
  mpPort: number;
  httpPort: number;
  /** The embedded MQTT broker's port; null when it is off (the default here: `--mqtt-port off`). */
  mqttPort: number | null;
  /** The server's processes: the child, and its workers when it runs with `--workers`. */
  pids(): number[];
  /** Resident set size of the server's processes in bytes (from /proc). */
  rss(): number;
  /** Peak resident set size of the server's processes so far in bytes (VmHWM from /proc; with workers, the sum of each one's peak). */
  peakRss(): number;
  /** CPU time (user + system) the server's processes have used so far, in seconds (from /proc). */
  cpuSeconds(): number;
  stop(): Promise<number | null>;
}

export interface ServerProcessOptions {
  /** Variables added to the child's environment (e.g. NODE_EXTRA_CA_CERTS for a local TLS endpoint). */
  env?: Record<string, string>;
  /** Keep the default per-address connection cap (the benchmarks turn it off unless they spread their source addresses). */
  perAddressCap?: boolean;
  /** Every line of the server's log (its stderr, JSON), instead of passing it through. */
  onLine?: (line: string) => void;
}

export async function startServerProcess(dataDir: string, extraArgs: string[] = [], options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [
      // e.g. VTS_BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' (not allowed in NODE_OPTIONS)
      ...(process.env.VTS_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      'dist/cli/main.js',
      'serve',
      '--data-dir',
      dataDir,
      '--bind',
      '127.0.0.1',
      '--mp-port',
      '0',
      '--http-port',
      '0',
      '--https-port',
      '0',
      '--mp-tls-port',
      '0',
      '--mqtt-port',
      'off',
      '--log-level',
      'warn',
      // every benchmark connects from 127.0.0.1 (the idle one 10,000 times): no per-address cap
      ...(options.perAddressCap ? [] : ['--max-connections-per-address', '0']),
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', options.onLine ? 'pipe' : 'inherit'], ...(options.env ? { env: { ...process.env, ...options.env } } : {}) },
  );
  if (options.onLine) createInterface({ input: child.stderr! }).on('line', options.onLine);
  // VTS_BENCH_SERVER_STDOUT=<file>: the server's standard output appended there too (e.g. with
  // VTS_BENCH_NODE_ARGS=--trace-gc, V8's line per collection)
  const tee = process.env.VTS_BENCH_SERVER_STDOUT;
  if (tee) child.stdout!.on('data', (chunk: Buffer) => appendFileSync(tee, chunk));
  const lines = createInterface({ input: child.stdout! });
  const ports = await new Promise<{ mp: number; http: number; mqtt: number | null }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not report its ports within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`server exited early (${code})`)));
    lines.on('line', (line) => {
      try {
        const ev = JSON.parse(line) as { event?: string; mp?: number; http?: number; mqtt?: number | null };
        if (ev.event === 'listening' && typeof ev.mp === 'number') {
          clearTimeout(timer);
          resolve({ mp: ev.mp, http: ev.http ?? 0, mqtt: typeof ev.mqtt === 'number' ? ev.mqtt : null });
        }
      } catch {
        /* not our line */
      }
    });
  });
  const workers = extraArgs.includes('--workers');
  const pids = (): number[] => [child.pid!, ...(workers ? childPids(child.pid!) : [])];
  return {
    child,
    mpPort: ports.mp,
    httpPort: ports.http,
    mqttPort: ports.mqtt,
    pids,
    rss: () => sum(pids().map(rssOf)),
    peakRss: () => sum(pids().map(peakRssOf)),
    cpuSeconds: () => sum(pids().map(cpuSecondsOf)),
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode); // exited, or killed (kill -9)
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      });
    },
  };
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
