/**
 * Fleet on a cluster (issue 32): the parked fleet of bench/fleet.ts against two clustered nodes A
 * and B (one PostgreSQL schema, one Redis prefix), half of the cars on each:
 * 1. all cars connect (the first half to A, the rest to B): the time, each node's RSS;
 * 2. two windows of `windowSeconds` (rounded up to whole minutes: PERIOD_S): the cars connected but silent (the cluster's own background
 *    in Redis and PostgreSQL), then with their parked traffic; Redis commands and PostgreSQL
 *    commits and rows per second and per car message, each node's CPU;
 * 3. failover: kill -9 of A; its cars, on their retries (random 0–10 s), go to B's port (as a load
 *    balancer or a DNS name with two addresses would send them): the time until every car is
 *    online again, failed tries, B's refusals and cluster lines, and what an app sees on B.
 */
import { Redis } from 'ioredis';
import { benchCluster } from './lib/bench-cluster.js';
import { PgCounters, pgDelta, readRedis, redisDelta, type PgDelta, type RedisDelta } from './lib/cluster-counters.js';
import { carAddress, type FleetCar } from './lib/fleet-car.js';
import { chargingAt, FleetPool, formatFailures, formatLogins } from './lib/fleet-pool.js';
import { ensureFds, fdLimitOf, fdsOf, LogCounts } from './lib/fleet-server.js';
import { cookieLogin } from './lib/payloads.js';
import type { ServerProcess } from './lib/server-process.js';
import { fmt, mib, percentile } from './lib/stats.js';

export interface FleetClusterOptions {
  dataDir: string;
  databaseArgs: string[];
  /** The database (PostgreSQL) and the run's schema in it, for the statistics. */
  databaseUrl: string;
  schema: string;
  redisUrl: string;
  ids: readonly string[];
  password: string;
  account: { user: string; password: string };
  cars: number;
  /** The share of the cars (0–1) whose `S` says they are charging (bench/fleet.ts). */
  charging: number;
  windowSeconds: number;
}

export interface Window {
  seconds: number;
  messages: number;
  redis: RedisDelta;
  pg: PgDelta;
  /** Each node's CPU over the window, share of one core (A, B). */
  cpu: [number, number];
  /** Other clients of the database (not this run's nodes or counters), at the start or the end, whichever more. */
  otherPgClients: number;
}

export interface FleetClusterResult {
  cars: number;
  chargingCars: number;
  prefix: string;
  fdLimits: [number | null, number | null];
  connectSeconds: number;
  connectFailures: string;
  rssEmpty: [number, number];
  rssFull: [number, number];
  fdsFull: [number, number];
  /** Cars `GET /api/vehicles` on A shows connected (both nodes' cars) before the kill. */
  appConnectedOnA: number;
  redisClients: number;
  /** From the logins' end until the first window: 65 s at least, until the schema had had no write for 12 s (150 s at most). */
  settleSeconds: number;
  background: Window;
  traffic: Window;
  failover: {
    moved: number;
    /** From the kill until the last of A's cars was online on B (null: not all within the limit). */
    allOnlineSeconds: number | null;
    /** Kill → online of each moved car, s. */
    p50: number;
    p99: number;
    online: number;
    failures: string;
    /** B's cars that were dropped meanwhile. */
    bReconnected: number;
    serverLog: string;
    /** B's cluster lines after the kill, with the seconds since it. */
    clusterLines: string;
    /** B's CPU from the kill until all were online, per moved car (ms). */
    cpuMsPerCar: number;
    redisPerCar: number;
    pgCommitsPerCar: number;
    pgRowsPerCar: number;
    /** Rows per moved car by table of the run's schema. */
    pgTables: string;
    rssB: number;
    fdsB: number;
    /** `GET /api/status/<one of A's cars>` on B: its HTTP status and `m_msgage_s`. */
    status: { code: number; msgAge: number | null; id: string; loginSeconds: number };
    /** Cars `GET /api/vehicles` on B shows connected, and how long after the kill it showed all. */
    appConnected: number;
    appAllSeconds: number | null;
  };
}

/**
 * The nodes' `--cluster-repair` (s, the default): each renews all its car claims then (a script
 * per car) and reads the presence hashes again.
 */
export const REPAIR_S = 30;
/**
 * The nodes' housekeeping period (s, src/server/server.ts): each writes the traffic of the vehicles
 * that had any since the last time (a `utilisation` row each). The windows are whole multiples of
 * it (and so of REPAIR_S), so that each holds as many repairs and flushes as the other, and the
 * first begins after the flush of the logins' traffic.
 */
export const PERIOD_S = 60;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const say = (line: string): boolean => process.stderr.write(`  ${line}\n`);

async function getJson(port: number, path: string, cookie: string): Promise<{ code: number; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { cookie } });
  const text = await res.text();
  try {
    return { code: res.status, body: JSON.parse(text) as unknown };
  } catch {
    return { code: res.status, body: text };
  }
}

/** How many of `ids` `GET /api/vehicles` shows with their car connected. */
async function connectedInApp(port: number, cookie: string, ids: ReadonlySet<string>): Promise<number> {
  const { body } = await getJson(port, '/api/vehicles', cookie);
  if (!Array.isArray(body)) return 0;
  return (body as { id?: string; v_net_connected?: number }[]).filter((v) => v.v_net_connected === 1 && ids.has(v.id ?? '')).length;
}

/** A log's cluster lines by message: how many, and when (seconds after `since`). */
function clusterLines(log: LogCounts, since: number): string {
  const by = new Map<string, { at: number[]; vehicles: number[] }>();
  for (const l of log.cluster) {
    const e = by.get(l.msg) ?? { at: [], vehicles: [] };
    e.at.push((l.at - since) / 1000);
    if (l.vehicles !== undefined) e.vehicles.push(l.vehicles);
    by.set(l.msg, e);
  }
  const parts = [...by].map(
    ([msg, { at, vehicles }]) =>
      `"${msg}" ×${at.length} at +${fmt(at[0]!, 1)} s${at.length > 1 ? ` to +${fmt(at[at.length - 1]!, 1)} s` : ''}${vehicles.length > 0 ? ` (vehicles: ${vehicles.join(', ')})` : ''}`,
  );
  return parts.length > 0 ? parts.join('; ') : 'none';
}

export async function runFleetCluster(o: FleetClusterOptions): Promise<FleetClusterResult> {
  // the bench holds a descriptor per car; each node its cars, and B all of them after the failover:
  // the nodes inherit this process's hard limit (raised if it can be), and node raises their soft limit to it
  ensureFds(o.cars + 150, 'fleet-cluster', o.cars + 2000);
  const cluster = benchCluster(o.redisUrl, o.dataDir, [...o.databaseArgs, '--rate-limit-burst', '0', '--log-level', 'info', '--cluster-repair', String(REPAIR_S)]);
  const windowSeconds = Math.max(1, Math.ceil(o.windowSeconds / PERIOD_S)) * PERIOD_S;
  const logs = [new LogCounts(), new LogCounts()];
  const redis = new Redis(o.redisUrl, { maxRetriesPerRequest: 1 });
  const pgc = new PgCounters(o.databaseUrl, o.schema);
  const nodes: ServerProcess[] = [];
  let pool: FleetPool | null = null;
  try {
    await pgc.connect();
    for (const [k, id] of ['a', 'b'].entries()) nodes.push(await cluster.start(id, [], { perAddressCap: true, onLine: (l) => logs[k]!.onLine(l) }));
    const [a, b] = nodes as [ServerProcess, ServerProcess];
    const fdLimits: [number | null, number | null] = [fdLimitOf(a.child.pid!), fdLimitOf(b.child.pid!)];
    if ((fdLimits[1] ?? Infinity) < o.cars + 100) say(`(B's open-files limit ${fdLimits[1]} is short of ${o.cars} cars and its own: it cannot take all of A's cars)`);
    const half = Math.floor(o.cars / 2);
    const ids = o.ids.slice(0, o.cars);
    pool = new FleetPool(
      ids.map((id, k) => ({ id, password: o.password, address: carAddress(k), port: k < half ? a.mpPort : b.mpPort, charging: chargingAt(k, o.charging) })),
      a.mpPort,
    );
    const p = pool;
    await sleep(2000);
    const rssEmpty: [number, number] = [a.rss(), b.rss()];

    say(`${fmt(o.cars)} cars connecting (${fmt(half)} to A, ${fmt(o.cars - half)} to B)...`);
    const t0 = performance.now();
    await p.startAll(2000);
    const progress = setInterval(() => say(`${fmt(p.online)} online`), 5000);
    const all = await p.whenOnline(o.cars, 300_000);
    clearInterval(progress);
    if (!all) throw new Error(`fleet-cluster: only ${p.online} of ${o.cars} cars online after 300 s (${formatFailures(p.failures)})`);
    const connectSeconds = (p.lastOnlineAt - t0) / 1000;
    const connectFailures = `${formatFailures(p.failures)}; ${formatLogins(p.loginMs)}`;
    await sleep(10_000); // the logins' records written, their garbage collected
    const rssFull: [number, number] = [a.rss(), b.rss()];
    const fdsFull: [number, number] = [fdsOf(a.child.pid!), fdsOf(b.child.pid!)];
    const idSet = new Set(ids);
    const appConnectedOnA = await connectedInApp(a.httpPort, await cookieLogin(a.httpPort, o.account.user, o.account.password), idSet);

    const ourPids = [...a.pids(), ...b.pids()];
    const measure = async (): Promise<Window> => {
      const others0 = await pgc.others(ourPids);
      const [r0, g0, m0, ca, cb, w0] = [await readRedis(redis), await pgc.read(), p.messages, a.cpuSeconds(), b.cpuSeconds(), performance.now()];
      await sleep(windowSeconds * 1000);
      const [r1, g1, m1, ca1, cb1, w1] = [await readRedis(redis), await pgc.read(), p.messages, a.cpuSeconds(), b.cpuSeconds(), performance.now()];
      const seconds = (w1 - w0) / 1000;
      const otherPgClients = Math.max(others0, await pgc.others(ourPids));
      return { seconds, messages: m1 - m0, redis: redisDelta(r0, r1), pg: pgDelta(g0, g1), cpu: [(ca1 - ca) / seconds, (cb1 - cb) / seconds], otherPgClients };
    };
    // the logins' writes done (and reported: a backend reports its counts within 10 s or so), the
    // housekeeping's flush of their traffic too
    say(`waiting for the logins' writes: ${PERIOD_S + 5} s after the last login at least, until the run's schema has had no write for 12 s...`);
    const settleAt = performance.now();
    let last = (await pgc.read()).schema;
    let quietSince = performance.now();
    const settled = (): boolean => performance.now() - quietSince >= 12_000 && performance.now() - p.lastOnlineAt >= (PERIOD_S + 5) * 1000;
    while (!settled() && performance.now() - settleAt < 150_000) {
      await sleep(2000);
      const now = (await pgc.read()).schema;
      if (now.inserted !== last.inserted || now.updated !== last.updated || now.deleted !== last.deleted) quietSince = performance.now();
      last = now;
    }
    const settleSeconds = (performance.now() - p.lastOnlineAt) / 1000;
    say(`background: ${windowSeconds} s with the cars connected and silent...`);
    const redisClients = (await readRedis(redis)).connectedClients;
    const background = await measure();
    say(`traffic: ${windowSeconds} s of parked traffic...`);
    p.drive();
    const traffic = await measure();

    say('failover: kill -9 of A...');
    p.resetCounts();
    logs[1] = new LogCounts();
    const moved = p.cars.slice(0, half);
    const stayed = p.cars.slice(half);
    const [r0, g0, cpuB0] = [await readRedis(redis), await pgc.read(), b.cpuSeconds()];
    const killAt = performance.now();
    a.child.kill('SIGKILL');
    for (const car of moved) car.port = b.mpPort;
    const back = (c: FleetCar): boolean => c.online && c.onlineAt > killAt;
    const deadline = killAt + 120_000;
    let said = killAt;
    while (!moved.every(back) && performance.now() < deadline) {
      await sleep(100);
      if (performance.now() - said >= 5000) {
        said = performance.now();
        say(`${fmt(moved.filter(back).length)} of A's ${fmt(half)} cars online on B`);
      }
    }
    const done = moved.every(back);
    const lastAt = Math.max(...moved.filter(back).map((c) => c.onlineAt));
    const [r1, g1, cpuB1] = [await readRedis(redis), await pgc.read(), b.cpuSeconds()];
    const times = moved.filter(back).map((c) => (c.onlineAt - killAt) / 1000).sort((x, y) => x - y);
    const bLog = logs[1];
    const cookieB = await cookieLogin(b.httpPort, o.account.user, o.account.password);
    const probe = moved[0]!.id;
    const st = await getJson(b.httpPort, `/api/status/${probe}`, cookieB);
    const msgAge = (st.body as { m_msgage_s?: unknown } | null)?.m_msgage_s;
    let appConnected = await connectedInApp(b.httpPort, cookieB, idSet);
    while (appConnected < o.cars && performance.now() < lastAt + 30_000) {
      await sleep(1000);
      appConnected = await connectedInApp(b.httpPort, cookieB, idSet);
    }
    const redisFail = redisDelta(r0, r1);
    const pgFail = pgDelta(g0, g1);
    const failover = {
      moved: half,
      allOnlineSeconds: done ? (lastAt - killAt) / 1000 : null,
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      online: p.online,
      failures: `${formatFailures(p.failures)}; ${formatLogins(p.loginMs)}`,
      bReconnected: stayed.filter((c) => c.onlineAt > killAt).length,
      serverLog: formatFailures(bLog.counts),
      clusterLines: clusterLines(bLog, killAt),
      cpuMsPerCar: ((cpuB1 - cpuB0) * 1000) / half,
      redisPerCar: redisFail.total / half,
      pgCommitsPerCar: pgFail.commits / half,
      pgRowsPerCar: pgFail.rows / half,
      pgTables: pgFail.tables.slice(0, 6).map(([t, n]) => `${t} ${fmt(n / half, 2)}`).join(', ') || 'none',
      rssB: b.rss(),
      fdsB: fdsOf(b.child.pid!),
      status: { code: st.code, msgAge: typeof msgAge === 'number' ? msgAge : null, id: probe, loginSeconds: (moved[0]!.onlineAt - killAt) / 1000 },
      appConnected,
      appAllSeconds: appConnected >= o.cars ? (performance.now() - killAt) / 1000 : null,
    };
    return {
      cars: o.cars,
      chargingCars: p.cars.filter((_, k) => chargingAt(k, o.charging)).length,
      prefix: cluster.prefix,
      fdLimits,
      connectSeconds,
      connectFailures,
      rssEmpty,
      rssFull,
      fdsFull,
      appConnectedOnA,
      redisClients,
      settleSeconds,
      background,
      traffic,
      failover,
    };
  } finally {
    pool?.stopAll();
    for (const n of nodes) await n.stop();
    redis.disconnect();
    await pgc.end().catch(() => undefined);
    await cluster.cleanup();
  }
}

const top = (d: RedisDelta, seconds: number): string =>
  d.top
    .slice(0, 6)
    .map(([cmd, n]) => `${cmd} ${fmt(n / seconds, 1)}`)
    .join(', ') || 'none';
const rate = (n: number, s: number): string => fmt(n / s, 1);

function redisLine(label: string, w: Window): string {
  return `    ${label} (${fmt(w.seconds, 1)} s, ${fmt(w.messages)} car messages, ${rate(w.messages, w.seconds)}/s): ${rate(w.redis.total, w.seconds)} commands/s (by command, /s: ${top(w.redis, w.seconds)})`;
}

function pgLine(label: string, w: Window): string {
  const s = w.pg.schema;
  return (
    `    ${label}: ${rate(w.pg.commits, w.seconds)} commits/s, ${rate(w.pg.rows, w.seconds)} rows written/s in the database` +
    ` (the run's schema: ${rate(w.pg.schemaRows, w.seconds)}/s = ${rate(s.inserted, w.seconds)} inserted + ${rate(s.updated, w.seconds)} updated + ${rate(s.deleted, w.seconds)} deleted)` +
    (w.pg.rollbacks > 0 ? `, ${fmt(w.pg.rollbacks)} rollbacks` : '') +
    (w.pg.tables.length > 0 ? ` [by table, /s: ${w.pg.tables.slice(0, 6).map(([t, n]) => `${t} ${rate(n, w.seconds)}`).join(', ')}]` : '') +
    (w.otherPgClients > 0 ? `; ${w.otherPgClients} other clients on the database (their commits count too)` : '; no other client on the database')
  );
}

/** Per car message of the traffic window: gross (all of it) and marginal (less the background's rate). */
function perMessage(bg: Window, tr: Window, of: (w: Window) => number): string {
  if (tr.messages === 0) return 'no messages';
  const gross = of(tr) / tr.messages;
  const marginal = ((of(tr) / tr.seconds - of(bg) / bg.seconds) * tr.seconds) / tr.messages;
  return `marginal ${fmt(marginal, 3)}, gross ${fmt(gross, 3)}`;
}

const pct = (share: number): string => `${fmt(share * 100, 2)} %`;
const secs = (s: number | null): string => (s === null ? 'not all' : `${fmt(s, 1)} s`);

export function reportFleetCluster(r: FleetClusterResult): string {
  const { background: bg, traffic: tr, failover: f } = r;
  const perCar = (i: 0 | 1): string => fmt((r.rssFull[i] - r.rssEmpty[i]) / (r.cars / 2) / 1024, 2);
  return [
    `Fleet on a cluster: ${fmt(r.cars)} parked cars (${fmt(r.chargingCars)} of them charging) on two clustered nodes A and B (PostgreSQL, one schema; Redis prefix ${r.prefix}), half on each, one address per car, the per-address cap on (open-files limit A ${r.fdLimits[0] ?? 'unlimited'}, B ${r.fdLimits[1] ?? 'unlimited'})`,
    `  connected in ${fmt(r.connectSeconds, 1)} s (${fmt(r.cars / r.connectSeconds)} logins/s); failed tries: ${r.connectFailures}`,
    `  RSS A ${mib(r.rssEmpty[0])} → ${mib(r.rssFull[0])} (${perCar(0)} KiB per car), B ${mib(r.rssEmpty[1])} → ${mib(r.rssFull[1])} (${perCar(1)} KiB per car); descriptors A ${fmt(r.fdsFull[0])}, B ${fmt(r.fdsFull[1])}`,
    `  app GET /api/vehicles on A: ${fmt(r.appConnectedOnA)} of ${fmt(r.cars)} cars connected (A's own and B's)`,
    `  Redis (INFO total_commands_processed, the commands of scripts included; ${r.redisClients} clients connected):`,
    redisLine('background, cars silent', bg),
    redisLine('parked traffic', tr),
    `    commands per car message: ${perMessage(bg, tr, (w) => w.redis.total)}`,
    `  PostgreSQL (pg_stat_database; pg_stat_user_tables of the run's schema; the first window began ${fmt(r.settleSeconds, 1)} s after the logins: the housekeeping's flush of their traffic done, and no write in the schema for 12 s):`,
    pgLine('background', bg),
    pgLine('parked traffic', tr),
    `    per car message: commits ${perMessage(bg, tr, (w) => w.pg.commits)}; rows ${perMessage(bg, tr, (w) => w.pg.rows)} (schema rows ${perMessage(bg, tr, (w) => w.pg.schemaRows)})`,
    `  CPU, % of a core: background A ${pct(bg.cpu[0])}, B ${pct(bg.cpu[1])}; parked traffic A ${pct(tr.cpu[0])}, B ${pct(tr.cpu[1])}`,
    `  failover: kill -9 of A; its ${fmt(f.moved)} cars all online on B ${secs(f.allOnlineSeconds)} after the kill (each car: p50 ${fmt(f.p50, 1)} s, p99 ${fmt(f.p99, 1)} s); ${fmt(f.online)} online at the end; target 30 s: ${f.allOnlineSeconds !== null && f.allOnlineSeconds <= 30 ? 'met' : 'NOT met'}`,
    `    failed tries (cars' view): ${f.failures}; B's own cars dropped: ${fmt(f.bReconnected)}`,
    `    B's log (refusals and warnings): ${f.serverLog}`,
    `    B's cluster lines: ${f.clusterLines}`,
    `    per moved car: B's CPU ${fmt(f.cpuMsPerCar, 2)} ms, Redis ${fmt(f.redisPerCar, 2)} commands, PostgreSQL ${fmt(f.pgCommitsPerCar, 2)} commits and ${fmt(f.pgRowsPerCar, 2)} rows (by table: ${f.pgTables})`,
    `    B afterwards: RSS ${mib(f.rssB)}, ${fmt(f.fdsB)} descriptors`,
    `    app on B: GET /api/status/${f.status.id} → ${f.status.code}${f.status.msgAge === null ? '' : `, m_msgage_s ${f.status.msgAge}`} (the car logged in on B ${fmt(f.status.loginSeconds, 1)} s after the kill, and sent S, D, L); GET /api/vehicles: ${fmt(f.appConnected)} of ${fmt(r.cars)} connected${f.appAllSeconds === null ? '' : ` (checked ${fmt(f.appAllSeconds, 1)} s after the kill)`}`,
  ].join('\n');
}
