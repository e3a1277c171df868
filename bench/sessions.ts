/**
 * Drives and charges (issue 28), three figures:
 * - MP ingest with the session recorder on against the same server with `--sessions off`, in the
 *   same run, alternating, with cars that drive (ignition on, odometer growing, positions moving),
 *   so that each car has a drive open and its tracker works on every record;
 * - `vts sessions rebuild` over a stored history (rows per second, the CLI's peak memory);
 * - `GET /api/drives/<id>` over a year of 2,000 drives (latency percentiles, cookie login).
 */
import { spawn } from 'node:child_process';
import { peakRssOf, rssOf } from './lib/proc.js';
import { openStore } from '../src/store/open.js';
import type { DriveSession } from '../src/core/drives/types.js';
import { runIngest, type IngestResult } from './mp-ingest.js';
import type { ServerProcess } from './lib/server-process.js';
import { httpLoad, type LoadResult, type LoadTool } from './lib/http-load.js';
import { cookieLogin } from './lib/payloads.js';
import { fmt } from './lib/stats.js';

/** S, D, L of a car on the road: batch `n` has driven `n` tenths further, and moved. */
export function drivingPayloads(k: number, n: number): string[] {
  const odometer = 100000 + k * 1000 + n;
  const lat = (51 + (n % 10000) / 100000).toFixed(6);
  return [
    `S${60 + (k % 30)},K,0,0,stopped,standard,300,280,16,0,0,0,0,21,0,0,0,0,160,0,0,400,90,0,0,0,0,0,0,450,0,0,390.5,97,0,0,-10.5,0,0,1234.5,64.0`,
    `D${0x80 | 0x0c},8,4,30,40,25,123,${odometer},60,0,20,2,1,1,12.5,4,12.6,16,35,1.2,21`,
    `L${lat},-0.100000,90,20,1,1,60.0,123,2,15.5,${(n / 1000).toFixed(3)},0.100,2,95,AA,9,0.9,60.0,80`,
  ];
}

export interface IngestPair {
  off: IngestResult[];
  on: IngestResult[];
}

/** The rounds of the ingest comparison: each way. */
export const SESSIONS_ROUNDS = 3;

/**
 * Alternates servers started with `--sessions off` and `on` (`rounds` each), each round with cars
 * of its own (`cars` of `vehicles`, which holds 2 × rounds × cars): a car that an earlier round
 * drove has a history its tracker would first catch up on (a rebuild, measured on its own), which
 * is not the steady state measured here.
 */
export async function runSessionsIngest(
  start: (args: string[]) => Promise<ServerProcess>,
  vehicles: readonly string[],
  cars: number,
  password: string,
  seconds: number,
  rounds = SESSIONS_ROUNDS,
): Promise<IngestPair> {
  const pair: IngestPair = { off: [], on: [] };
  let next = 0;
  for (let r = 0; r < rounds; r++) {
    for (const mode of ['off', 'on'] as const) {
      const own = vehicles.slice(next, next + cars);
      next += cars;
      if (own.length < cars) throw new Error(`the sessions benchmark needs ${2 * rounds * cars} vehicles`);
      const server = await start(['--sessions', mode]);
      try {
        pair[mode].push(await runIngest([server], own, password, seconds, 0, drivingPayloads));
      } finally {
        await server.stop();
      }
    }
  }
  return pair;
}

const STEP = 10;

/** Fills `rows` history rows over `vehicles`: hours of driving then parking, a record every 10 s. */
export async function fillHistory(dataDir: string, database: string | undefined, vehicles: readonly string[], rows: number): Promise<number> {
  const store = await openStore(dataDir, { database });
  const started = performance.now();
  const per = Math.ceil(rows / vehicles.length);
  const t0 = Math.floor(Date.now() / 1000) - per * STEP - 3600;
  const expires = t0 + 10 * 365 * 86400;
  try {
    for (const [k, id] of vehicles.entries()) {
      let odometer = 100000;
      for (let i = 0; i < per; i++) {
        const time = t0 + i * STEP;
        // an hour's cycle: 30 min driving, 30 min parked
        const driving = Math.floor(i / 180) % 2 === 0;
        if (driving) odometer += 2;
        const type = 'SDL'[i % 3]!;
        const soc = 90 - ((i / 36) % 60);
        const data =
          type === 'S'
            ? `${soc.toFixed(1)},K,0,0,stopped,standard,300,280,16,0,0,0,0,21,0,0,0,0,160,0,0,400,90,0,0,0,0,0,0,450,0,0,390.5,97,0,0,-10.5,0,0,1234.5,64.0`
            : type === 'D'
              ? `${driving ? 0x8c : 0x0c},8,4,30,40,25,123,${odometer},${driving ? 72 : 0},0,20,2,1,1,12.5,4,12.6,16,35,1.2,21`
              : `${(51 + (odometer % 5000) / 10000).toFixed(6)},-0.${String(k).padStart(6, '0')},90,20,1,1,${driving ? '72.0' : '0.0'},123,2,15.5,1.000,0.100,2,95,AA,9,0.9,0.0,80`;
        await store.addHistorical({ vehicleId: id, type, recordNumber: 0, time, data, expires });
      }
    }
    await store.flush();
  } finally {
    await store.close();
  }
  return (performance.now() - started) / 1000;
}

export interface RebuildBench {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  rssMb: number[];
  peakRssMb: number;
  output: string;
}

/** Runs `vts sessions rebuild` (every vehicle) on the data folder / database. */
export async function runRebuild(dataDir: string, databaseArgs: string[], rows: number): Promise<RebuildBench> {
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/cli/main.js', 'sessions', 'rebuild', '--data-dir', dataDir, ...databaseArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const samples: number[] = [];
  let peak = 0;
  const sample = setInterval(() => {
    const rss = rssOf(child.pid!);
    if (rss > 0) samples.push(rss);
    // (not readable once the process has gone)
    const high = peakRssOf(child.pid!);
    if (Number.isFinite(high)) peak = Math.max(peak, high);
  }, 100);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(sample);
  if (code !== 0) throw new Error(`vts sessions rebuild exited with ${code}: ${stderr.slice(-2000)}`);
  const seconds = (performance.now() - started) / 1000;
  const mb = (b: number): number => Math.round(b / 1048576);
  const at = (f: number): number => mb(samples[Math.min(samples.length - 1, Math.floor(samples.length * f))] ?? 0);
  return { rows, seconds, rowsPerSecond: rows / seconds, rssMb: [at(0.25), at(0.5), at(0.75), at(1)], peakRssMb: mb(peak), output: output.trim() };
}

/** 2,000 drives over the last year for the vehicle, each with a short path. */
export async function seedDrives(dataDir: string, database: string | undefined, vehicleId: string, count = 2000): Promise<void> {
  const store = await openStore(dataDir, { database });
  try {
    const now = Math.floor(Date.now() / 1000);
    const span = 365 * 86400;
    const drives: DriveSession[] = [];
    for (let i = 0; i < count; i++) {
      const start = now - span + Math.floor((i * span) / count);
      const end = start + 1800;
      const path = Array.from({ length: 60 }, (_, j) => ({ t: start + j * 30, lat: 51 + j / 1000, lon: -0.1 + j / 1000, speed: 50, soc: 80 - j / 10 }));
      drives.push({
        session: 'drive', key: `live:${start}`, start, end, soh: 97, units: 'K',
        startOdometer: 10000 + i * 25, endOdometer: 10025 + i * 25, distance: 25, socStart: 80, socEnd: 74,
        energyUsed: 4.2, energyRecovered: 0.6, maxSpeed: 98, from: { lat: 51, lon: -0.1 }, to: { lat: 51.06, lon: -0.04 },
        fromPlace: null, toPlace: null, source: 'live', path,
      });
    }
    await store.drives.replaceSessions(vehicleId, drives, '{}', 0);
  } finally {
    await store.close();
  }
}

export async function runDrivesList(server: ServerProcess, vehicleId: string, account: { user: string; password: string }, seconds: number, tool: LoadTool): Promise<LoadResult> {
  const cookie = await cookieLogin(server.httpPort, account.user, account.password);
  const now = Math.floor(Date.now() / 1000);
  const url = `http://127.0.0.1:${server.httpPort}/api/drives/${vehicleId}?from=${now - 366 * 86400}&to=${now}`;
  const check = await fetch(url, { headers: { cookie } });
  const body = (await check.json()) as unknown[];
  if (check.status !== 200 || body.length < 2000) throw new Error(`GET /api/drives answered ${check.status} with ${body.length} drives`);
  const run = await httpLoad(tool, [{ url, headers: { cookie }, connections: 1 }], seconds);
  return run.results[0]!;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export function reportSessions(pair: IngestPair, rebuild: RebuildBench, list: LoadResult): string {
  const rate = (rs: IngestResult[]): number => median(rs.map((r) => r.carMessagesPerSecond));
  const cpu = (rs: IngestResult[]): number => median(rs.map((r) => (r.serverCpuShare * 1e6) / r.carMessagesPerSecond));
  const off = rate(pair.off);
  const on = rate(pair.on);
  return [
    `Drives and charges: MP ingest of driving cars, ${pair.on[0]?.cars ?? 0} cars, ${pair.on.length} rounds each way (medians)`,
    `  --sessions off: ${fmt(off)} car messages/s, ${fmt(cpu(pair.off), 2)} µs server CPU per message`,
    `  --sessions on:  ${fmt(on)} car messages/s, ${fmt(cpu(pair.on), 2)} µs server CPU per message`,
    `  on / off: ${fmt((on / off) * 100)} % of the messages/s`,
    `vts sessions rebuild: ${fmt(rebuild.rows)} history rows in ${fmt(rebuild.seconds, 1)} s: ${fmt(rebuild.rowsPerSecond)} rows/s (${rebuild.output})`,
    `  resident memory at 1/4, 1/2, 3/4, end: ${rebuild.rssMb.join(', ')} MB; peak ${rebuild.peakRssMb} MB`,
    `GET /api/drives over a year (2,000 drives): ${fmt(list.requestsPerSecond)} requests/s, p50 ${fmt(list.p50Ms, 1)} ms, p99 ${fmt(list.p99Ms, 1)} ms${list.non2xx + list.errors > 0 ? ` (${list.non2xx} non-2xx, ${list.errors} errors)` : ''}`,
  ].join('\n');
}

