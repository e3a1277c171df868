/**
 * Fleet: N emulated parked modules (bench/lib/fleet-car.ts), each its own vehicle, TCP connection
 * and source address in 127.0.0.0/8, against one `vts serve` with the per-address cap on:
 * 1. an app's `GET /api/status` p99 with one car, the server's RSS, then all N cars connect;
 * 2. idle: RSS per car, the server's CPU over `idleSeconds` of parked traffic, its descriptors,
 *    the app's p99 again;
 *    the app's p99 is taken against a reference: a second server with one car, asked in turn with
 *    this one within each tick (bench/lib/status-poller.ts), once before the fleet connects (the
 *    method's own spread, two one-car servers) and once with the fleet parked;
 * 3. reconnect storm: the server restarts (SIGTERM, then a new one on the same ports) and every
 *    car retries at a random 0–10 s: time until all are online, failed tries by reason (the cars'
 *    view and the server's log), the app's p99 meanwhile;
 * 4. NAT: `natCars` cars from ONE address against a fresh server, all arriving within 10 s.
 */
import { randomBytes } from 'node:crypto';
import { startServerProcess, type ServerProcess } from './lib/server-process.js';
import { carAddress } from './lib/fleet-car.js';
import { chargingAt, FleetPool, formatFailures, formatLogins } from './lib/fleet-pool.js';
import { ensureFds, fdLimitOf, fdsOf, LogCounts } from './lib/fleet-server.js';
import { pollApart, type PollResult } from './lib/status-poller.js';
import { fmt, mib, percentile } from './lib/stats.js';

export interface FleetOptions {
  dataDir: string;
  databaseArgs: string[];
  /** The one-car reference server's data folder and database options (provisioned with the app's car). */
  reference: { dataDir: string; databaseArgs: string[] };
  ids: readonly string[];
  password: string;
  account: { user: string; password: string };
  cars: number;
  /** The share of the cars (0–1) whose `S` says they are charging; the others are parked with the cable out. */
  charging: number;
  natCars: number;
  idleSeconds: number;
  /** Seconds from the last login to the idle window. */
  settleSeconds: number;
  appSeconds: number;
  retryMaxMs: number;
}

interface Latency {
  p50: number;
  p99: number;
  samples: number;
  non200: number;
  errors: number;
}

export interface FleetResult {
  cars: number;
  chargingCars: number;
  fdLimitServer: number | null;
  loginSeconds: number;
  fillFailures: string;
  rssEmptyBytes: number;
  rssFullBytes: number;
  /** The server's V8 heap (used, total) and memory outside it (external, of it array buffers), from its /metrics. */
  heapEmpty: HeapFigures;
  heapFull: HeapFigures;
  /** The server's CPU for one /metrics scrape with all cars connected, ms (as /proc counts it: 10 ms steps). */
  scrapeCpuMs: number;
  fdsFull: number;
  idleCpuShare: number;
  idleSeconds: number;
  /** Seconds from the last login to the idle window: the settle time, and longer until the server was quiet. */
  settledSeconds: number;
  /** This server with one car, and the reference meanwhile. */
  appEmpty: Latency;
  appEmptyReference: Latency;
  /** This server with all the cars, and the reference meanwhile. */
  appFull: Latency;
  appFullReference: Latency;
  storm: {
    stopSeconds: number;
    /** From the old server's exit until the new one listened. */
    startSeconds: number;
    /** The new server's CPU from listening until every car was online, per car. */
    cpuMsPerCar: number;
    allOnlineFromStopSeconds: number | null;
    allOnlineFromListenSeconds: number | null;
    online: number;
    failures: string;
    serverLog: string;
    app: Latency;
  };
  nat: { cars: number; allOnlineSeconds: number | null; online: number; failures: string; serverLog: string };
}

const latency = (r: PollResult): Latency => ({
  p50: percentile(r.samples, 50),
  p99: percentile(r.samples, 99),
  samples: r.samples.length,
  non200: r.non200,
  errors: r.errors,
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface HeapFigures {
  used: number;
  total: number;
  external: number;
}

/** The server's heap figures from its `/metrics` (prom-client's default metrics). */
async function heapOf(port: number, token: string): Promise<HeapFigures> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  const read = (name: string): number => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
  return { used: read('nodejs_heap_size_used_bytes'), total: read('nodejs_heap_size_total_bytes'), external: read('nodejs_external_memory_bytes') };
}

/** The server's RSS once a second for `seconds`: the median (the garbage collector's swing is seconds long). */
async function medianRss(server: ServerProcess, seconds: number): Promise<number> {
  const samples: number[] = [];
  for (let k = 0; k < Math.max(1, seconds); k++) {
    await sleep(1000);
    samples.push(server.rss());
  }
  return percentile(samples.sort((a, b) => a - b), 50);
}
const say = (line: string): boolean => process.stderr.write(`  ${line}\n`);

/** The idle window waits, after the settle time, until the server used at most this share of a core over `QUIET_WINDOW_S`. */
const QUIET_SHARE = 0.1;
const QUIET_WINDOW_S = 5;

/** Waits until the server's CPU over a window is at most `share` of a core, for at most `maxSeconds`. */
async function quietServer(server: ServerProcess, share: number, maxSeconds: number): Promise<void> {
  const t0 = performance.now();
  for (;;) {
    const cpu0 = server.cpuSeconds();
    await sleep(QUIET_WINDOW_S * 1000);
    const busy = (server.cpuSeconds() - cpu0) / QUIET_WINDOW_S;
    const waited = (performance.now() - t0) / 1000;
    if (busy <= share) return;
    if (waited >= maxSeconds) {
      say(`(the server stayed busy: ${fmt(busy * 100)} % of a core after ${fmt(waited)} s more; measuring anyway)`);
      return;
    }
    say(`(the server is still busy after the settle time: ${fmt(busy * 100)} % of a core; waiting)`);
  }
}

export async function runFleet(o: FleetOptions): Promise<FleetResult> {
  ensureFds(Math.max(o.cars, o.natCars) + 200);
  const metricsToken = randomBytes(24).toString('hex');
  const args = [...o.databaseArgs, '--rate-limit-burst', '0', '--log-level', 'info', '--metrics-token', metricsToken];
  const specs = o.ids.slice(0, o.cars).map((id, k) => ({ id, password: o.password, address: carAddress(k), charging: chargingAt(k, o.charging) }));
  let log = new LogCounts();
  let server: ServerProcess = await startServerProcess(o.dataDir, args, { perAddressCap: true, onLine: log.onLine });
  const pool = new FleetPool(specs, server.mpPort);
  // the same options as the server measured: its per-request metrics and log level included
  const reference = await startServerProcess(o.reference.dataDir, [...o.reference.databaseArgs, ...args.slice(o.databaseArgs.length)], { perAddressCap: true, onLine: () => undefined });
  const referencePool = new FleetPool(specs.slice(0, 1), reference.mpPort);
  try {
    const fdLimitServer = fdLimitOf(server.child.pid!);
    await sleep(2000);
    // the app's car first, then the app alone on the empty server
    const appCar = pool.cars[0]!;
    appCar.start();
    referencePool.cars[0]!.start();
    await pool.whenOnline(1, 10_000);
    await referencePool.whenOnline(1, 10_000);
    await sleep(500);
    say(`app: GET /api/status/${appCar.id} for ${o.appSeconds} s with one car, in turn with the one-car reference server...`);
    const [emptyPoll, emptyReferencePoll] = await pollApart([server.httpPort, reference.httpPort], o.account, appCar.id, o.appSeconds).result;
    const appEmpty = latency(emptyPoll!);
    const appEmptyReference = latency(emptyReferencePoll!);
    const rssEmptyBytes = await medianRss(server, 5);
    const heapEmpty = await heapOf(server.httpPort, metricsToken);

    say(`${fmt(o.cars)} cars connecting...`);
    const t0 = performance.now();
    await pool.startAll(2000);
    const progress = setInterval(() => say(`${fmt(pool.online)} online`), 5000);
    const all = await pool.whenOnline(o.cars, 300_000);
    clearInterval(progress);
    if (!all) throw new Error(`fleet: only ${pool.online} of ${o.cars} cars online after 300 s (${formatFailures(pool.failures)})`);
    const loginSeconds = (pool.lastOnlineAt - t0) / 1000;
    const fillFailures = `${formatFailures(pool.failures)}; ${formatLogins(pool.loginMs)}`;
    pool.drive();
    referencePool.drive();
    // settled: the logins' garbage collected (V8's collections after the heap grew are over within
    // a minute), the first records stored, and the recorder has ticked with the cars quiet (their
    // trackers rest: SessionTracker.rest); the parked fleet as it is from then on
    await sleep(o.settleSeconds * 1000);
    // and until the server is quiet: on a slow machine, or on a fresh PostgreSQL database where
    // every car's drives tracker is rebuilt from its history, the fill's work lasts longer
    await quietServer(server, QUIET_SHARE, 300);
    const settledSeconds = (performance.now() - pool.lastOnlineAt) / 1000;
    const fdsFull = fdsOf(server.child.pid!);
    say(`idle: the server's CPU and RSS over ${o.idleSeconds} s of parked traffic...`);
    const cpu0 = server.cpuSeconds();
    const w0 = performance.now();
    const rssFullBytes = await medianRss(server, o.idleSeconds);
    const idleCpuShare = (server.cpuSeconds() - cpu0) / ((performance.now() - w0) / 1000);
    // after the window: a scrape's own CPU is not the parked fleet's
    const scrapeCpu0 = server.cpuSeconds();
    const heapFull = await heapOf(server.httpPort, metricsToken);
    const scrapeCpuMs = (server.cpuSeconds() - scrapeCpu0) * 1000;
    say(`app: GET /api/status for ${o.appSeconds} s with ${fmt(o.cars)} cars, in turn with the one-car reference server...`);
    const [fullPoll, fullReferencePoll] = await pollApart([server.httpPort, reference.httpPort], o.account, appCar.id, o.appSeconds).result;
    const appFull = latency(fullPoll!);
    const appFullReference = latency(fullReferencePoll!);
    referencePool.stopAll();
    await reference.stop();

    // reconnect storm
    say('storm: restarting the server...');
    pool.resetCounts();
    const ports = { mp: server.mpPort, http: server.httpPort };
    const stopAt = performance.now();
    await server.stop();
    const stoppedAt = performance.now();
    const stopSeconds = (stoppedAt - stopAt) / 1000;
    log = new LogCounts();
    server = await startServerProcess(o.dataDir, [...args, '--mp-port', String(ports.mp), '--http-port', String(ports.http)], { perAddressCap: true, onLine: log.onLine });
    const listenAt = performance.now();
    const stormCpu0 = server.cpuSeconds();
    const startSeconds = (listenAt - stoppedAt) / 1000;
    const app = pollApart(server.httpPort, o.account, appCar.id);
    const stormApp = app.result.then(([r]) => r!);
    const stormProgress = setInterval(() => say(`${fmt(pool.online)} online`), 5000);
    const back = await pool.whenOnline(o.cars, 180_000);
    clearInterval(stormProgress);
    const onlineAt = pool.lastOnlineAt;
    const stormCpuSeconds = server.cpuSeconds() - stormCpu0;
    await sleep(1000);
    app.stop();
    const storm = {
      stopSeconds,
      startSeconds,
      cpuMsPerCar: (stormCpuSeconds * 1000) / o.cars,
      allOnlineFromStopSeconds: back ? (onlineAt - stopAt) / 1000 : null,
      allOnlineFromListenSeconds: back ? (onlineAt - listenAt) / 1000 : null,
      online: pool.online,
      failures: `${formatFailures(pool.failures)}; ${formatLogins(pool.loginMs)}`,
      serverLog: formatFailures(log.counts),
      app: latency(await stormApp),
    };
    pool.stopAll();
    await server.stop();

    // NAT: many cars behind one address
    say(`NAT: ${fmt(o.natCars)} cars from 127.0.0.2 arriving within ${o.retryMaxMs / 1000} s...`);
    log = new LogCounts();
    server = await startServerProcess(o.dataDir, args, { perAddressCap: true, onLine: log.onLine });
    const natPool = new FleetPool(
      // each try from a port of its own below the ephemeral range (10000–31999), as a NAT maps them
      o.ids.slice(0, o.natCars).map((id, k) => ({ id, password: o.password, address: '127.0.0.2', localPortOf: (n: number) => 10_000 + ((k + n * o.natCars) % 22_000) })),
      server.mpPort,
    );
    const natAt = performance.now();
    natPool.startScattered(o.retryMaxMs);
    const natAll = await natPool.whenOnline(o.natCars, 120_000);
    const nat = {
      cars: o.natCars,
      allOnlineSeconds: natAll ? (natPool.lastOnlineAt - natAt) / 1000 : null,
      online: natPool.online,
      failures: `${formatFailures(natPool.failures)}; ${formatLogins(natPool.loginMs)}`,
      serverLog: formatFailures(log.counts),
    };
    natPool.stopAll();
    return {
      cars: o.cars,
      chargingCars: specs.filter((c) => c.charging).length,
      fdLimitServer,
      loginSeconds,
      fillFailures,
      rssEmptyBytes,
      rssFullBytes,
      heapEmpty,
      heapFull,
      scrapeCpuMs,
      fdsFull,
      idleCpuShare,
      idleSeconds: o.idleSeconds,
      settledSeconds,
      appEmpty,
      appEmptyReference,
      appFull,
      appFullReference,
      storm,
      nat,
    };
  } finally {
    pool.stopAll();
    referencePool.stopAll();
    await server.stop();
    await reference.stop();
  }
}

const ms = (l: Latency): string =>
  `p50 ${fmt(l.p50, 2)} ms, p99 ${fmt(l.p99, 2)} ms (${fmt(l.samples)} answers${l.non200 || l.errors ? `, ${l.non200} not 200, ${l.errors} failed` : ''})`;
const ratio = (a: Latency, b: Latency): string => `p99 ${fmt((100 * a.p99) / b.p99)} %, p50 ${fmt((100 * a.p50) / b.p50)} % of the reference's`;
const secs = (s: number | null): string => (s === null ? 'not all' : `${fmt(s, 1)} s`);

export function reportFleet(r: FleetResult): string {
  const perCar = (r.rssFullBytes - r.rssEmptyBytes) / r.cars;
  return [
    `Fleet: ${fmt(r.cars)} parked cars (${fmt(r.chargingCars)} of them charging), one address each in 127.0.0.0/8, the per-address cap on (server open-files limit ${r.fdLimitServer ?? 'unlimited'})`,
    `  connected in ${fmt(r.loginSeconds, 1)} s (${fmt(r.cars / r.loginSeconds)} logins/s); failed tries: ${r.fillFailures}`,
    `  server RSS (median of a sample a second) ${mib(r.rssEmptyBytes)} with one car, ${mib(r.rssFullBytes)} with all: ${fmt(perCar / 1024, 2)} KiB per idle car; ${fmt(r.fdsFull)} open descriptors`,
    `  of it: V8 heap used ${mib(r.heapEmpty.used)} → ${mib(r.heapFull.used)} (${fmt((r.heapFull.used - r.heapEmpty.used) / r.cars / 1024, 2)} KiB per car), heap reserved ${mib(r.heapEmpty.total)} → ${mib(r.heapFull.total)}, outside the heap (buffers) ${mib(r.heapEmpty.external)} → ${mib(r.heapFull.external)}; that /metrics scrape took ${fmt(r.scrapeCpuMs)} ms of server CPU`,
    `  server CPU while idle (parked traffic, ${r.idleSeconds} s from ${fmt(r.settledSeconds)} s after the last login): ${fmt(r.idleCpuShare * 100, 2)} % of a core`,
    `  app GET /api/status, asked in turn with a one-car reference server (p99 against the reference's, same moments):`,
    `    before the fleet: this server (one car) ${ms(r.appEmpty)}; reference ${ms(r.appEmptyReference)}; ${ratio(r.appEmpty, r.appEmptyReference)} (the method's own spread)`,
    `    with ${fmt(r.cars)} cars: this server ${ms(r.appFull)}; reference ${ms(r.appFullReference)}; ${ratio(r.appFull, r.appFullReference)}`,
    `    this server's p99 with ${fmt(r.cars)} cars against its own one-car window before: ${fmt((100 * r.appFull.p99) / r.appEmpty.p99)} %`,
    `  storm: the server stopped in ${fmt(r.storm.stopSeconds, 1)} s, the new one listened ${fmt(r.storm.startSeconds, 1)} s later; all ${fmt(r.cars)} online ${secs(r.storm.allOnlineFromStopSeconds)} after the stop began (${secs(r.storm.allOnlineFromListenSeconds)} after the new server listened; ${fmt(r.storm.online)} online at the end)`,
    `    the new server's CPU until all were online: ${fmt(r.storm.cpuMsPerCar, 2)} ms per car`,
    `    failed tries (cars' view): ${r.storm.failures}`,
    `    server log (refusals and warnings): ${r.storm.serverLog}`,
    `    app GET /api/status during the storm: ${ms(r.storm.app)}`,
    `  NAT: ${fmt(r.nat.cars)} cars from one address, arriving within 10 s: ${r.nat.allOnlineSeconds === null ? `only ${fmt(r.nat.online)} online` : `all online after ${fmt(r.nat.allOnlineSeconds, 1)} s`}`,
    `    failed tries: ${r.nat.failures}; server log: ${r.nat.serverLog}`,
  ].join('\n');
}
