/**
 * History at scale (issue 32): a store filled with `rows` historical records (D and L) over
 * `vehicles` vehicles, spread over two years, through the store's bulk write for benchmarks
 * (`store.historyStats.insertMany`: one transaction per 10,000 rows); then, against a `vts serve` child:
 * - `GET /api/historical/<id>/<type>` latency over random vehicles and types (a cookie login with
 *   user and password, as the apps do), one request at a time;
 * - the retention purge of a day's expired rows (the first housekeeping run, 60 s after the start)
 *   while MP cars ingest at full speed: the ingest during the purge against the ingest before it;
 * - the space of the table and of its indexes (SQLite: the file after a checkpoint; PostgreSQL:
 *   pg_table_size and pg_relation_size), and the plans of the reads and the purge.
 */
import { statSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import type { HistoryPlan, HistoryStorage } from '../src/store/history-stats-store.js';
import type { HistoricalRecord } from '../src/store/types.js';
import { openStore, SQLITE_FILE_NAME } from '../src/store/open.js';
import { BenchCar } from './lib/car.js';
import { cookieLogin, D, L, S } from './lib/payloads.js';
import type { ServerProcess } from './lib/server-process.js';
import { fmt, mib, percentile } from './lib/stats.js';

const DAY = 86400;
/** The span of the stored history (and its retention): two years. */
export const HISTORY_SPAN = 730 * DAY;
/**
 * A busy car's D and L per day at the firmware's rate (FW3 `server.v2`: every `updatetime.connected`
 * = 60 s while an app is connected, every `updatetime.idle` = 600 s otherwise): an hour and a half a
 * day with an app connected (90 of each), the rest idle (135 of each).
 */
export const BUSY_ROWS_PER_DAY = 2 * (90 + 135);
const PUT_BATCH = 10_000;
/** The housekeeping's first run comes 60 s after the server starts; the ingest starts before it. */
const HOUSEKEEPING_S = 60;
const BASELINE_S = 20;

export interface HistoryFill {
  rows: number;
  vehicles: number;
  expired: number;
  seconds: number;
}

/** D and L data of vehicle k at pair i (the payloads vary as a car's do). */
function payloads(k: number, i: number): [string, string] {
  const odometer = 100000 + k * 100 + Math.floor(i / 3);
  const driving = i % 16 === 0;
  const lat = (51 + ((k * 131 + i) % 10000) / 100000).toFixed(6);
  const lon = (-0.1 - ((k * 71 + i) % 10000) / 100000).toFixed(6);
  return [
    `${driving ? 0x8c : 0x0c},8,4,${20 + (i % 15)},${25 + (k % 10)},25,${i % 3600},${odometer},${driving ? 60 + (i % 40) : 0},0,20,2,1,1,${(12 + (i % 9) / 10).toFixed(1)},4,12.6,16,35,1.2,21`,
    `${lat},${lon},${i % 360},${20 + (k % 50)},1,1,${driving ? '72.0' : '0.0'},123,2,15.5,1.000,0.100,2,95,AA,9,0.9,0.0,80`,
  ];
}

/**
 * Writes `rows` records over `vehicles`: each vehicle's D and L in pairs, evenly over the two years
 * before `now`, in time order across the vehicles (as a fleet's records arrive); each vehicle's
 * oldest `expired / vehicles` records have expired an hour ago, the others expire two years and two
 * days after their time.
 */
export async function fillHistoryRows(dataDir: string, database: string | undefined, vehicles: readonly string[], rows: number, expired: number, now: number): Promise<HistoryFill> {
  const store = await openStore(dataDir, { database });
  const started = performance.now();
  const pairs = Math.ceil(rows / vehicles.length / 2);
  const step = Math.max(1, Math.floor(HISTORY_SPAN / pairs));
  const expiredPairs = Math.ceil(expired / vehicles.length / 2);
  const t0 = now - HISTORY_SPAN;
  let written = 0;
  let expiredWritten = 0;
  let nextReport = rows / 10;
  let batch: HistoricalRecord[] = [];
  const put = async (): Promise<void> => {
    await store.historyStats.insertMany(batch);
    batch = [];
    if (written >= nextReport || written === rows) {
      const s = (performance.now() - started) / 1000;
      process.stderr.write(`  ${fmt(written)} of ${fmt(rows)} rows (${fmt((100 * written) / rows)} %), ${fmt(written / s)} rows/s\n`);
      nextReport += rows / 10;
    }
  };
  try {
    for (let i = 0; i < pairs && written < rows; i++) {
      for (let k = 0; k < vehicles.length && written < rows; k++) {
        const time = t0 + i * step + ((k * 7919) % step);
        const gone = i < expiredPairs;
        const expires = gone ? now - 3600 : time + HISTORY_SPAN + 2 * DAY;
        const [d, l] = payloads(k, i);
        batch.push({ vehicleId: vehicles[k]!, type: 'D', recordNumber: 0, time, data: d, expires });
        written++;
        if (gone) expiredWritten++;
        if (written < rows) {
          batch.push({ vehicleId: vehicles[k]!, type: 'L', recordNumber: 0, time, data: l, expires });
          written++;
          if (gone) expiredWritten++;
        }
        if (batch.length >= PUT_BATCH) await put();
      }
    }
    if (batch.length > 0) await put();
  } finally {
    await store.close();
  }
  return { rows: written, vehicles: vehicles.length, expired: expiredWritten, seconds: (performance.now() - started) / 1000 };
}

export interface HistorySpace {
  storage: HistoryStorage;
  plans: HistoryPlan[];
  /** SQLite: the database file after the store closed (a checkpoint); null on PostgreSQL. */
  fileBytes: number | null;
}

export async function measureSpace(dataDir: string, database: string | undefined): Promise<HistorySpace> {
  const store = await openStore(dataDir, { database });
  let storage: HistoryStorage;
  let plans: HistoryPlan[];
  try {
    plans = await store.historyStats.plans();
    storage = await store.historyStats.storage();
  } finally {
    await store.close();
  }
  return { storage, plans, fileBytes: database === undefined ? statSync(join(dataDir, SQLITE_FILE_NAME)).size : null };
}

export interface PurgeEvent {
  /** Date.now() of its start and end (the server's log line: end time, duration). */
  start: number;
  end: number;
  records: number;
  batches: number;
}

/** A purge from a log line of the server (`expired history purged`), else null. */
export function purgeEventOf(line: string): PurgeEvent | null {
  try {
    const e = JSON.parse(line) as { msg?: string; time?: string | number; ms?: number; records?: number; batches?: number };
    const end = typeof e.time === 'string' ? Date.parse(e.time) : e.time;
    if (e.msg !== 'expired history purged' || end === undefined || !Number.isFinite(end)) return null;
    return { start: end - (e.ms ?? 0), end, records: e.records ?? 0, batches: e.batches ?? 0 };
  } catch {
    return null;
  }
}

export interface Latency {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  meanBytes: number;
  meanRecords: number;
}

/** `GET /api/historical/<id>/<D|L>` for random vehicles, one at a time, on one keep-alive connection. */
export async function historyLatency(server: ServerProcess, account: { user: string; password: string }, vehicles: readonly string[], samples: number): Promise<Latency> {
  const cookie = await cookieLogin(server.httpPort, account.user, account.password);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let seed = 12345;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const get = (path: string): Promise<{ ms: number; bytes: number; records: number }> =>
    new Promise((resolve, reject) => {
      const t = performance.now();
      const req = request({ host: '127.0.0.1', port: server.httpPort, path, agent, headers: { cookie } }, (res) => {
        let bytes = 0;
        let records = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          for (let i = c.indexOf('h_data'); i !== -1; i = c.indexOf('h_data', i + 6)) records++;
        });
        res.on('end', () => (res.statusCode === 200 ? resolve({ ms: performance.now() - t, bytes, records }) : reject(new Error(`${path}: ${res.statusCode}`))));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  const path = (): string => `/api/historical/${vehicles[random(vehicles.length)]!}/${random(2) === 0 ? 'D' : 'L'}`;
  for (let i = 0; i < Math.min(20, samples); i++) await get(path()); // warm-up
  const times: number[] = [];
  let bytes = 0;
  let records = 0;
  for (let i = 0; i < samples; i++) {
    const r = await get(path());
    times.push(r.ms);
    bytes += r.bytes;
    records += r.records;
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  return { samples, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), maxMs: times[times.length - 1] ?? 0, meanBytes: bytes / samples, meanRecords: records / samples };
}

export interface PurgeIngest {
  cars: number;
  /** Car messages (S/D/L) per second before the purge, during it and after it. */
  before: number;
  during: number;
  after: number;
  purge: PurgeEvent | null;
  /** The seconds of each window. */
  windows: { before: number; during: number; after: number };
}

/**
 * MP cars (S, D, L and a ping, then the next batch on the `a`) from `startAt` until a few seconds
 * after the housekeeping's first purge run ends (or `maxUntil`); the message counts are sampled
 * every 100 ms, so that the rate can be read over any window.
 */
export async function ingestAcrossPurge(
  server: ServerProcess,
  ids: readonly string[],
  password: string,
  purges: readonly PurgeEvent[],
  maxUntil: number,
): Promise<PurgeIngest> {
  const cars = await Promise.all(ids.map((id) => BenchCar.connect(server.mpPort, id, password)));
  let batches = 0;
  let stop = false;
  for (const [k, car] of cars.entries()) {
    const s = S.replace('S80', `S${50 + (k % 50)}`);
    car.onMessage = (code) => {
      if (code !== 'a') return;
      batches++;
      if (!stop) car.sendAll([s, D, L, 'A']);
    };
    car.sendAll([s, D, L, 'A']);
  }
  const started = Date.now();
  const counts: { t: number; n: number }[] = [{ t: started, n: 0 }];
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const t = Date.now();
      counts.push({ t, n: batches });
      const done = purges[0] !== undefined && t > purges[0].end + 11_000;
      if (done || t > maxUntil) {
        clearInterval(timer);
        resolve();
      }
    }, 100);
  });
  stop = true;
  await new Promise((r) => setTimeout(r, 200));
  for (const car of cars) car.close();
  /** Car messages per second over [a, b] (3 per batch). */
  const rate = (a: number, b: number): number => {
    const inside = counts.filter((c) => c.t >= a && c.t <= b);
    if (inside.length < 2) return NaN;
    const first = inside[0]!;
    const last = inside[inside.length - 1]!;
    return (3 * (last.n - first.n) * 1000) / (last.t - first.t);
  };
  const purge = purges[0] ?? null;
  const end = counts[counts.length - 1]!.t;
  const beforeFrom = started + 5000; // the cars' first seconds are slower
  const beforeTo = purge ? purge.start - 500 : end;
  return {
    cars: cars.length,
    before: rate(beforeFrom, beforeTo),
    during: purge ? rate(purge.start, purge.end) : NaN,
    after: purge ? rate(purge.end + 1000, end) : NaN,
    purge,
    windows: { before: (beforeTo - beforeFrom) / 1000, during: purge ? (purge.end - purge.start) / 1000 : 0, after: purge ? (end - purge.end - 1000) / 1000 : 0 },
  };
}

export interface HistoryBench {
  database: string;
  fill: HistoryFill;
  space: HistorySpace;
  latency: Latency;
  ingest: PurgeIngest;
  /** Purges that ran while the latency was measured (should be none). */
  purgesDuringLatency: number;
}

export interface HistoryBenchOptions {
  dataDir: string;
  database: string | undefined;
  start(onLogLine: (line: string) => void): Promise<ServerProcess>;
  account: { user: string; password: string };
  historyIds: readonly string[];
  ingestIds: readonly string[];
  carPassword: string;
  rows: number;
  expired: number;
  samples: number;
}

export async function runHistoryBench(o: HistoryBenchOptions): Promise<HistoryBench> {
  const now = Math.floor(Date.now() / 1000);
  process.stderr.write(`  filling ${fmt(o.rows)} rows over ${fmt(o.historyIds.length)} vehicles (${fmt(o.expired)} of them expired)...\n`);
  const fill = await fillHistoryRows(o.dataDir, o.database, o.historyIds, o.rows, o.expired, now);
  process.stderr.write(`  filled in ${fmt(fill.seconds, 1)} s (${fmt(fill.rows / fill.seconds)} rows/s); measuring the space...\n`);
  const space = await measureSpace(o.dataDir, o.database);
  const purges: PurgeEvent[] = [];
  const server = await o.start((line) => {
    const e = purgeEventOf(line);
    if (e) {
      purges.push(e);
      process.stderr.write(`  purge: ${fmt(e.records)} records in ${e.batches} batches, ${fmt((e.end - e.start) / 1000, 1)} s\n`);
    } else if (/"level":(40|50|60)/.test(line)) process.stderr.write(line + '\n');
  });
  const startedAt = Date.now();
  try {
    process.stderr.write(`  GET /api/historical/<id>/<type>: ${o.samples} samples...\n`);
    const latency = await historyLatency(server, o.account, o.historyIds, o.samples);
    const purgesDuringLatency = purges.length;
    const ingestFrom = startedAt + (HOUSEKEEPING_S - BASELINE_S) * 1000;
    if (Date.now() < ingestFrom) await new Promise((r) => setTimeout(r, ingestFrom - Date.now()));
    process.stderr.write(`  MP ingest of ${o.ingestIds.length} cars across the first housekeeping run...\n`);
    const ingest = await ingestAcrossPurge(server, o.ingestIds, o.carPassword, purges, startedAt + (HOUSEKEEPING_S + 60) * 1000);
    return { database: o.database === undefined ? 'SQLite' : 'PostgreSQL', fill, space, latency, ingest, purgesDuringLatency };
  } finally {
    await server.stop();
  }
}

export function reportHistory(r: HistoryBench): string {
  const { storage, fileBytes } = r.space;
  const indexBytes = storage.indexes.reduce((n, i) => n + i.bytes, 0);
  const total = fileBytes ?? storage.tableBytes + indexBytes;
  const perRow = total / Math.max(1, storage.rows);
  const carYear = BUSY_ROWS_PER_DAY * 365;
  const i = r.ingest;
  const pct = (a: number, b: number): string => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${fmt((100 * a) / b)} %` : 'n/a');
  return [
    `History (${r.database}): ${fmt(r.fill.rows)} rows over ${fmt(r.fill.vehicles)} vehicles (${fmt(r.fill.rows / r.fill.vehicles)} each, D and L over 2 years)`,
    `  fill: ${fmt(r.fill.seconds, 1)} s, ${fmt(r.fill.rows / r.fill.seconds)} rows/s (store.historyStats.insertMany, ${fmt(PUT_BATCH)} rows per transaction)`,
    `  space: ${fileBytes !== null ? `file ${mib(fileBytes)} after a checkpoint; ` : ''}table ${mib(storage.tableBytes)}, ${storage.indexes.map((x) => `${x.name} ${mib(x.bytes)}`).join(', ')}` +
      (fileBytes === null ? ` (pg_total_relation_size ${mib(total)})` : ''),
    `  per row: ${fmt(perRow, 1)} bytes (table ${fmt(storage.tableBytes / Math.max(1, storage.rows), 1)}, indexes ${fmt(indexBytes / Math.max(1, storage.rows), 1)}); a busy car-year (${fmt(carYear)} D and L at the firmware's rate): ${mib(perRow * carYear)}`,
    `  GET /api/historical/<id>/<type>: p50 ${fmt(r.latency.p50Ms, 2)} ms, p99 ${fmt(r.latency.p99Ms, 2)} ms, max ${fmt(r.latency.maxMs, 2)} ms over ${r.latency.samples} samples (${fmt(r.latency.meanRecords)} records, ${fmt(r.latency.meanBytes / 1024)} KiB per answer)` +
      (r.purgesDuringLatency > 0 ? ` (a purge ran meanwhile)` : ''),
    i.purge
      ? `  purge: ${fmt(i.purge.records)} of ${fmt(r.fill.expired)} expired records in ${i.purge.batches} batches, ${fmt(i.windows.during, 1)} s (the first housekeeping run)`
      : `  purge: none seen within the run`,
    `  MP ingest (${i.cars} cars): before ${fmt(i.before)} car messages/s (${fmt(i.windows.before, 1)} s), during the purge ${fmt(i.during)} (${pct(i.during, i.before)} of before, ${pct(i.during, i.after)} of after), after ${fmt(i.after)} (${fmt(i.windows.after, 1)} s)`,
    `  plans:`,
    ...r.space.plans.map((p) => `    ${p.query}: ${p.indexes.join(', ') || 'no index'} | ${p.plan.join(' / ')}`),
  ].join('\n');
}
