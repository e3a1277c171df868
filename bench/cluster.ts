/**
 * The cluster benchmarks (`--only cluster`): real `vts serve` children on the run's database (the
 * SQLite file of the data folder, or the PostgreSQL schema of `--database`) and one Redis under a
 * key prefix of the run's own, removed at the end. One node that is not clustered (the baseline),
 * clustered nodes A and B and `vts serve --workers 2` (two more nodes of the same cluster) run
 * side by side, those not under test idle. In order: delivery and command latency, MP ingest,
 * `GET /api/status`. On SQLite the baseline node gets a copy of the data folder, as a single node
 * has its file to itself (the nodes of the cluster share theirs: one writer at a time).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchCluster } from './lib/bench-cluster.js';
import type { LoadTool } from './lib/http-load.js';
import { startServerProcess, type ServerProcess } from './lib/server-process.js';
import { fmt, mib } from './lib/stats.js';
import { reportClusterIngest, runClusterIngest, type ClusterIngestResult } from './cluster-ingest.js';
import { reportClusterLatency, runClusterLatency, type LatencyResult } from './cluster-latency.js';
import { CLUSTERED_ALONE, measureStatus, ONE_NODE, reportClusterStatus, statusCar, TWO_NODES, WORKERS, type StatusCase } from './cluster-http.js';

/** The ingest and /api/status cases take turns in this many rounds (other processes come and go). */
const ROUNDS = 5;

/** The targets of issue 14 on this 2-core machine. */
export const TARGETS = { ingestShare: 0.7, commandOverheadP99Ms: 5, workersStatusFactor: 1.5 };

export interface ClusterBenchOptions {
  dataDir: string;
  /** `vts serve` options of the run's database. */
  databaseArgs: string[];
  /** What the report says of the database. */
  databaseLabel: string;
  redisUrl: string;
  ids: string[];
  cars: number;
  carPassword: string;
  user: string;
  password: string;
  token: string;
  seconds: number;
  httpSeconds: number;
  samples: number;
  tool: LoadTool;
}

export interface ClusterBenchResult {
  opts: ClusterBenchOptions;
  prefix: string;
  latency: LatencyResult;
  ingest: ClusterIngestResult;
  status: StatusCase[];
  /** Peak RSS of each server at its stop (VmHWM; for --workers the sum of its processes' peaks). */
  peaks: [string, number][];
}

const say = (line: string): void => void process.stderr.write(`  cluster: ${line}...\n`);

export async function runClusterBench(opts: ClusterBenchOptions): Promise<ClusterBenchResult> {
  // the rate limiter is off, as in the http and command benchmarks: every request comes from 127.0.0.1
  const serverArgs = [...opts.databaseArgs, '--rate-limit-burst', '0'];
  const cluster = benchCluster(opts.redisUrl, opts.dataDir, serverArgs);
  const running = new Map<string, ServerProcess>();
  const peaks: [string, number][] = [];
  const sqlite = opts.databaseArgs.length === 0;
  const singleDir = sqlite ? mkdtempSync(join(tmpdir(), 'vts-bench-single-')) : opts.dataDir;
  if (sqlite) cpSync(opts.dataDir, singleDir, { recursive: true });
  const stop = async (label: string): Promise<void> => {
    const s = running.get(label);
    if (!s) return;
    running.delete(label);
    peaks.push([label, s.peakRss()]);
    await s.stop();
  };
  try {
    say(`starting one node, a cluster of two and --workers 2 in the same cluster (Redis prefix ${cluster.prefix})`);
    const single = await startServerProcess(singleDir, serverArgs);
    running.set('one node', single);
    const a = await cluster.start('a');
    running.set('node A', a);
    const b = await cluster.start('b');
    running.set('node B', b);
    const workers = await cluster.start('w', ['--workers', '2']);
    running.set('--workers 2', workers);
    const nodes = { single, a, b };

    say(`delivery and command latency, ${opts.samples} samples per variant`);
    const latency = await runClusterLatency(nodes, {
      vehicles: [opts.ids[1]!, opts.ids[2]!],
      carPassword: opts.carPassword,
      user: opts.user,
      password: opts.password,
      samples: opts.samples,
      redis: { url: opts.redisUrl, channel: `${cluster.prefix}:bench-hop` },
    });

    const ingest = await runClusterIngest(nodes, opts.ids.slice(0, opts.cars), opts.carPassword, opts.seconds, ROUNDS, (what) => say(`MP ingest, ${what}`));

    const vehicleId = opts.ids[0]!;
    const cars = [await statusCar(single, vehicleId, opts.carPassword), await statusCar(a, vehicleId, opts.carPassword)];
    let status: StatusCase[];
    try {
      status = await measureStatus(
        [
          { label: ONE_NODE, servers: [single], ports: [single.httpPort] },
          { label: CLUSTERED_ALONE, servers: [a], ports: [a.httpPort] },
          { label: TWO_NODES, servers: [a, b], ports: [a.httpPort, b.httpPort] },
          { label: WORKERS, servers: [workers], ports: [workers.httpPort] },
        ],
        { vehicleId, user: opts.user, password: opts.password, token: opts.token, rounds: ROUNDS, roundSeconds: Math.max(1, Math.round(opts.httpSeconds / ROUNDS)), tool: opts.tool },
        (what) => say(`GET /api/status, ${what}`),
      );
    } finally {
      for (const car of cars) car.close();
    }
    return { opts, prefix: cluster.prefix, latency, ingest, status, peaks };
  } finally {
    for (const label of [...running.keys()]) await stop(label);
    await cluster.cleanup();
    if (sqlite) rmSync(singleDir, { recursive: true, force: true });
  }
}

export function reportClusterBench(r: ClusterBenchResult): string {
  return [
    `Cluster (${r.opts.databaseLabel}; Redis ${r.opts.redisUrl}, prefix ${r.prefix}; every node a vts serve child on 127.0.0.1):`,
    ...reportClusterLatency(r.latency, TARGETS.commandOverheadP99Ms),
    ...reportClusterIngest(r.ingest, TARGETS.ingestShare),
    ...reportClusterStatus(r.status, r.opts.tool, TARGETS.workersStatusFactor),
    `  server RSS peak at the end: ${r.peaks.map(([label, bytes]) => `${label} ${mib(bytes)}`).join(', ')}`,
    `  (${fmt(r.opts.samples)} latency samples per variant; ingest ${r.opts.seconds} s and /api/status ${r.opts.httpSeconds} s per case, in ${ROUNDS} rounds)`,
  ].join('\n');
}
