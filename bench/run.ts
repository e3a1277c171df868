/**
 * `npm run bench`: builds vts if needed, provisions a temporary data folder (or a schema of a
 * PostgreSQL database, `--database postgres://…`), and runs each benchmark against a real
 * `vts serve` child process (this process is the load generator).
 *
 *   npm run bench -- [--cars 50] [--apps 0] [--seconds 10] [--idle 10000] [--http-seconds 10] [--command-vehicles 100]
 *                    [--mqtt-vehicles 50] [--mqtt-samples 200] [--only ingest|http|command|mqtt|push|idle|cluster|import|sessions|ha|alerts|history] [--database URL]
 *                    [--redis redis://127.0.0.1:6379] [--cluster-samples 1000] [--http-load wrk|autocannon]
 *                    [--push-subscriptions 1000] [--push-vehicles 100] [--push-alerts 5] [--push-rounds 3] [--push-delay 50]
 *                    [--import-rows 1000000] [--rebuild-rows 1000000] [--ha-vehicles 1000] [--ha-reps 5]
 *                    [--alerts-cycle 20] [--nat-cars 2000] [--fleet-idle-seconds 60] [--fleet-app-seconds 60] [--fleet-charging 0] [--fleet-settle-seconds 75]
 *                    [--history-rows 10000000] [--history-vehicles 1000] [--history-expired N] [--history-samples 400]
 *   npm run bench -- --only fleet [--cars 19000]   (only when asked for: needs as many open files as cars)
 *   npm run bench -- --only fleet-cluster --database postgres://… [--redis redis://…] [--cars 20000] [--fleet-idle-seconds 60]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { hashApiToken, newApiToken } from '../src/auth/api-token.js';
import { hashPassword } from '../src/auth/password.js';
import { openStore } from '../src/store/open.js';
import { runIdle, reportIdle } from './mp-idle.js';
import { runIngest, reportIngest } from './mp-ingest.js';
import { startServerProcess } from './lib/server-process.js';
import { benchDatabase } from './lib/database.js';
import { reportHttp, runHttp } from './http-status.js';
import { reportCommandRoundTrip, runCommandRoundTrip } from './command-roundtrip.js';
import { reportMqttBridge, runMqttBridge } from './mqtt-bridge.js';
import { reportClusterBench, runClusterBench } from './cluster.js';
import { reportImport, runImportBench } from './import.js';
import { reportPush, runPushBench } from './push.js';
import { fillHistory, reportSessions, runDrivesList, runRebuild, runSessionsIngest, seedDrives, SESSIONS_ROUNDS } from './sessions.js';
import { HA_ROUNDS, reportHa, runHaAnnounce, runHaIngest, seedHaVehicles, settledRss } from './ha.js';
import { ALERTS_CYCLE, ALERTS_ROUNDS, reportAlerts, runAlertsIngest } from './alerts.js';
import { BUSY_ROWS_PER_DAY, reportHistory, runHistoryBench } from './history.js';
import { redisProblem } from './lib/bench-cluster.js';
import { loadTool } from './lib/http-load.js';
import { reportFleet, runFleet } from './fleet.js';
import { reportFleetCluster, runFleetCluster } from './fleet-cluster.js';

const { values } = parseArgs({
  options: {
    cars: { type: 'string' },
    apps: { type: 'string', default: '0' },
    seconds: { type: 'string', default: '10' },
    idle: { type: 'string', default: '10000' },
    only: { type: 'string' },
    'http-seconds': { type: 'string', default: '10' },
    'command-vehicles': { type: 'string', default: '100' },
    'mqtt-vehicles': { type: 'string', default: '50' },
    'mqtt-samples': { type: 'string', default: '200' },
    database: { type: 'string' },
    redis: { type: 'string', default: 'redis://127.0.0.1:6379' },
    'cluster-samples': { type: 'string', default: '1000' },
    'http-load': { type: 'string' },
    'push-subscriptions': { type: 'string', default: '1000' },
    'push-vehicles': { type: 'string', default: '100' },
    'push-alerts': { type: 'string', default: '5' },
    'push-rounds': { type: 'string', default: '3' },
    'push-delay': { type: 'string', default: '50' },
    'import-rows': { type: 'string', default: '1000000' },
    'rebuild-rows': { type: 'string', default: '1000000' },
    'ha-vehicles': { type: 'string', default: '1000' },
    'ha-reps': { type: 'string', default: '5' },
    'alerts-cycle': { type: 'string', default: String(ALERTS_CYCLE) },
    'nat-cars': { type: 'string', default: '2000' },
    'fleet-idle-seconds': { type: 'string', default: '60' },
    'fleet-app-seconds': { type: 'string', default: '60' },
    'fleet-charging': { type: 'string', default: '0' },
    'fleet-settle-seconds': { type: 'string', default: '75' },
    'history-rows': { type: 'string', default: '10000000' },
    'history-vehicles': { type: 'string', default: '1000' },
    'history-expired': { type: 'string' },
    'history-samples': { type: 'string', default: '400' },
  },
});
const CARS = Number(values.cars ?? 50);
/** The fleet benchmark's cars: --cars, else 19,000. */
const FLEET_CARS = Number(values.cars ?? 19_000);
/** The fleet-cluster benchmark's cars (half on each node): --cars, else 20,000. */
const FLEET_CLUSTER_CARS = Number(values.cars ?? 20_000);
const APPS = Math.min(Number(values.apps), CARS);
const SECONDS = Number(values.seconds);
const IDLE = Number(values.idle);
const HTTP_SECONDS = Number(values['http-seconds']);
const COMMAND_VEHICLES = Number(values['command-vehicles']);
const MQTT_VEHICLES = Number(values['mqtt-vehicles']);
const MQTT_SAMPLES = Number(values['mqtt-samples']);
const CLUSTER_SAMPLES = Number(values['cluster-samples']);
const PUSH_SUBSCRIPTIONS = Number(values['push-subscriptions']);
const PUSH_VEHICLES = Number(values['push-vehicles']);
const PUSH_ALERTS = Number(values['push-alerts']);
const PUSH_ROUNDS = Number(values['push-rounds']);
const PUSH_DELAY = Number(values['push-delay']);
const HISTORY_ROWS = Number(values['history-rows']);
const HISTORY_VEHICLES = Number(values['history-vehicles']);
const PASSWORD = 'BENCHPASS';
const USER_PASSWORD = 'bench-password';
const TOKEN = newApiToken();
/** The user the benchmarks log in as (provisioned below). */
const ACCOUNT = { user: 'bench', password: USER_PASSWORD };
const DATABASE = benchDatabase(values.database);
const NAT_CARS = Number(values['nat-cars']);
/** fleet and fleet-cluster: the share of the cars that are charging (0–1). */
const FLEET_CHARGING = Number(values['fleet-charging']);
if (!(FLEET_CHARGING >= 0 && FLEET_CHARGING <= 1)) throw new Error(`--fleet-charging: a share from 0 to 1, not ${values['fleet-charging']}`);

async function provision(dataDir: string, count: number, database: string | undefined = DATABASE.url): Promise<{ ids: string[]; ownerId: number }> {
  const store = await openStore(dataDir, { database });
  const owner = await store.addOwner(ACCOUNT.user, await hashPassword(ACCOUNT.password), '*');
  await store.addApiToken({
    ownerId: owner.id,
    tokenHash: hashApiToken(TOKEN),
    application: 'bench',
    purpose: 'bench',
    permit: 'auth',
    created: Math.floor(Date.now() / 1000),
    lastUsed: null,
  });
  const ids = Array.from({ length: count }, (_, k) => `BENCH${String(k).padStart(5, '0')}`);
  for (let k = 0; k < count; k += 1000) {
    await store.addVehicles(ids.slice(k, k + 1000).map((id) => ({ id, ownerId: owner.id, name: id, carPassword: PASSWORD })));
  }
  await store.close();
  return { ids, ownerId: owner.id };
}

/** `--only fleet-cluster` runs on PostgreSQL and Redis only: null when both are there, else the line that says what is missing. */
async function fleetClusterProblem(): Promise<string | null> {
  if (!values.database?.startsWith('postgres')) return 'fleet-cluster: needs PostgreSQL: give --database postgres://… (e.g. --database postgres://127.0.0.1:5432/test)';
  const problem = await redisProblem(values.redis);
  return problem ? `fleet-cluster: no Redis at ${values.redis} (${problem}): start redis-server or give --redis` : null;
}

async function main(): Promise<void> {
  if (values.only === 'fleet-cluster') {
    const problem = await fleetClusterProblem();
    if (problem) {
      process.stderr.write(problem + '\n');
      process.exit(2);
    }
  }
  execFileSync(process.execPath, ['scripts/build-if-needed.mjs'], { stdio: 'inherit' });
  const dataDir = mkdtempSync(join(tmpdir(), 'vts-bench-'));
  const wanted = values.only;
  const reports: string[] = [];
  try {
    const count = Math.max(
      CARS,
      COMMAND_VEHICLES,
      MQTT_VEHICLES,
      3, // the cluster benchmark's latency cars
      !wanted || wanted === 'push' ? PUSH_VEHICLES + CARS : 1, // push: the alert cars, then the ingest cars
      !wanted || wanted === 'sessions' ? 2 * SESSIONS_ROUNDS * CARS + 11 : 1, // sessions: the ingest cars of each round, 10 with history, 1 with a year of drives
      !wanted || wanted === 'ha' ? 2 * HA_ROUNDS * CARS : 1, // ha: the ingest cars of each round (its 1,000 announced vehicles have an owner of their own)
      !wanted || wanted === 'alerts' ? 2 * ALERTS_ROUNDS * CARS : 1, // alerts: the ingest cars of each round
      wanted === 'fleet' ? Math.max(FLEET_CARS, NAT_CARS) : 1, // fleet (only when asked for): its cars, and the NAT cars
      wanted === 'fleet-cluster' ? FLEET_CLUSTER_CARS : 1, // fleet-cluster (only when asked for): its cars
      !wanted || wanted === 'history' ? HISTORY_VEHICLES + CARS : 1, // history: the vehicles with history, then the ingest cars
      wanted === 'fleet' ||
      wanted === 'fleet-cluster' ||
      wanted === 'ingest' || wanted === 'http' || wanted === 'command' || wanted === 'mqtt' || wanted === 'push' || wanted === 'cluster' || wanted === 'import' || wanted === 'sessions' || wanted === 'ha' || wanted === 'alerts' || wanted === 'history'
        ? 1
        : IDLE,
    );
    process.stderr.write(`provisioning ${count} vehicles in ${DATABASE.url === undefined ? dataDir : 'PostgreSQL'}...\n`);
    const { ids, ownerId } = await provision(dataDir, count);

    if (!wanted || wanted === 'ingest') {
      process.stderr.write(`MP ingest: ${CARS} cars${APPS > 0 ? ` (${APPS} with an app)` : ''} for ${SECONDS} s...\n`);
      const server = await startServerProcess(dataDir, DATABASE.args);
      try {
        reports.push(reportIngest(await runIngest([server], ids.slice(0, CARS), PASSWORD, SECONDS, APPS)));
      } finally {
        await server.stop();
      }
    }
    if (!wanted || wanted === 'http') {
      process.stderr.write(`HTTP: GET /api/status for ${HTTP_SECONDS} s with a cookie, from a bare node:http server, with a token...\n`);
      const server = await startServerProcess(dataDir, [...DATABASE.args, '--rate-limit-burst', '0']);
      try {
        const r = await runHttp(server, {
          vehicleId: ids[0]!,
          carPassword: PASSWORD,
          ...ACCOUNT,
          token: TOKEN,
          seconds: HTTP_SECONDS,
          tool: loadTool(values['http-load']),
        });
        reports.push(reportHttp(r));
      } finally {
        await server.stop();
      }
    }
    if (!wanted || wanted === 'command') {
      process.stderr.write(`Commands: round trips with 1 and ${COMMAND_VEHICLES} emulated vehicles...\n`);
      const server = await startServerProcess(dataDir, [...DATABASE.args, '--rate-limit-burst', '0']);
      try {
        const r = await runCommandRoundTrip(server, {
          ids,
          carPassword: PASSWORD,
          ...ACCOUNT,
          seconds: SECONDS,
          counts: [1, COMMAND_VEHICLES],
        });
        reports.push(reportCommandRoundTrip(r));
      } finally {
        await server.stop();
      }
    }
    if (!wanted || wanted === 'mqtt') {
      process.stderr.write(`MQTT bridge: ${MQTT_VEHICLES} v3 vehicles for ${SECONDS} s, then ${MQTT_SAMPLES} latency samples idle and loaded...\n`);
      const server = await startServerProcess(dataDir, [...DATABASE.args, '--mqtt-port', '0', '--rate-limit-burst', '0']);
      try {
        const r = await runMqttBridge(server, {
          ids: ids.slice(0, MQTT_VEHICLES),
          ...ACCOUNT,
          seconds: SECONDS,
          samples: MQTT_SAMPLES,
        });
        reports.push(reportMqttBridge(r));
      } finally {
        await server.stop();
      }
    }
    if (!wanted || wanted === 'push') {
      process.stderr.write(
        `Push: ${PUSH_SUBSCRIPTIONS} subscriptions on ${PUSH_VEHICLES} vehicles, ${PUSH_ROUNDS} bursts of ${PUSH_ALERTS} alerts per car, endpoints answering after ${PUSH_DELAY} ms, ${CARS} ingest cars...\n`,
      );
      const r = await runPushBench({
        dataDir,
        database: DATABASE.url,
        databaseArgs: DATABASE.args,
        ownerId,
        alertIds: ids.slice(0, PUSH_VEHICLES),
        ingestIds: ids.slice(PUSH_VEHICLES, PUSH_VEHICLES + CARS),
        carPassword: PASSWORD,
        subscriptions: PUSH_SUBSCRIPTIONS,
        alertsPerCar: PUSH_ALERTS,
        rounds: PUSH_ROUNDS,
        delayMs: PUSH_DELAY,
      });
      reports.push(reportPush(r));
    }
    if (!wanted || wanted === 'idle') {
      process.stderr.write(`MP idle: ${IDLE} connections...\n`);
      const server = await startServerProcess(dataDir, DATABASE.args);
      try {
        const r = await runIdle(server, ids.slice(0, IDLE), PASSWORD, (n) => process.stderr.write(`  ${n} connected\n`));
        reports.push(reportIdle(r));
      } finally {
        await server.stop();
      }
    }
    if (!wanted || wanted === 'cluster') {
      const problem = await redisProblem(values.redis);
      if (problem && wanted === 'cluster') throw new Error(`cluster: no Redis at ${values.redis} (${problem}): start redis-server or give --redis`);
      if (problem) {
        process.stderr.write(`Cluster: skipped, no Redis at ${values.redis} (${problem})\n`);
        reports.push(`Cluster: skipped, no Redis at ${values.redis} (${problem})`);
      } else {
        const tool = loadTool(values['http-load']);
        process.stderr.write(`Cluster: one node vs two clustered nodes vs --workers 2 (${tool} for HTTP)...\n`);
        const r = await runClusterBench({
          dataDir,
          databaseArgs: DATABASE.args,
          databaseLabel: DATABASE.url === undefined ? 'SQLite: one file shared by the cluster, a copy for the single node' : 'PostgreSQL: one schema for every node',
          redisUrl: values.redis,
          ids,
          cars: CARS,
          carPassword: PASSWORD,
          ...ACCOUNT,
          token: TOKEN,
          seconds: SECONDS,
          httpSeconds: HTTP_SECONDS,
          samples: CLUSTER_SAMPLES,
          tool,
        });
        reports.push(reportClusterBench(r));
      }
    }
    if (!wanted || wanted === 'import') {
      const rows = Number(values['import-rows']);
      process.stderr.write(`vts import: ${rows} history rows from MariaDB...\n`);
      reports.push(reportImport(await runImportBench(rows, DATABASE.args)));
    }
    if (!wanted || wanted === 'sessions') {
      const rows = Number(values['rebuild-rows']);
      process.stderr.write(`drives and charges: MP ingest of ${CARS} driving cars with --sessions off and on, a rebuild of ${rows} history rows, GET /api/drives...\n`);
      const rounds = 2 * SESSIONS_ROUNDS * CARS;
      const pair = await runSessionsIngest((args) => startServerProcess(dataDir, [...DATABASE.args, ...args]), ids.slice(0, rounds), CARS, PASSWORD, SECONDS);
      const history = ids.slice(rounds, rounds + 10);
      const filled = await fillHistory(dataDir, DATABASE.url, history, rows);
      process.stderr.write(`  ${rows} history rows written in ${filled.toFixed(1)} s; rebuilding...\n`);
      const rebuild = await runRebuild(dataDir, [...DATABASE.args, ...history], rows);
      const yearCar = ids[rounds + 10]!;
      await seedDrives(dataDir, DATABASE.url, yearCar);
      const server = await startServerProcess(dataDir, [...DATABASE.args, '--rate-limit-burst', '0']);
      try {
        const list = await runDrivesList(server, yearCar, ACCOUNT, HTTP_SECONDS, loadTool(values['http-load']));
        reports.push(reportSessions(pair, rebuild, list));
      } finally {
        await server.stop();
      }
    }
    if (!wanted || wanted === 'ha') {
      const haVehicles = Number(values['ha-vehicles']);
      process.stderr.write(`Home Assistant: MP ingest of ${CARS} cars with the v3 mirror and discovery on and off, then ${haVehicles} vehicles announced to a new client...\n`);
      const pair = await runHaIngest((args) => startServerProcess(dataDir, [...DATABASE.args, ...args]), ids.slice(0, 2 * HA_ROUNDS * CARS), CARS, PASSWORD, SECONDS, ACCOUNT);
      const haAccount = { user: 'habench', password: USER_PASSWORD };
      const haIds = await seedHaVehicles(dataDir, DATABASE.url, haAccount, haVehicles, PASSWORD);
      const server = await startServerProcess(dataDir, [...DATABASE.args, '--mqtt-port', '0']);
      const listening = performance.now();
      let announce;
      try {
        announce = await runHaAnnounce(server, haAccount, haIds, Number(values['ha-reps']), listening);
      } finally {
        await server.stop();
      }
      const off = await startServerProcess(dataDir, [...DATABASE.args, '--mqtt-port', '0', '--mqtt-mirror', 'off', '--ha-discovery', 'off']);
      try {
        announce.rssOffBytes = await settledRss(off);
      } finally {
        await off.stop();
      }
      reports.push(reportHa(pair, announce));
    }
    if (!wanted || wanted === 'alerts') {
      const cycle = Number(values['alerts-cycle']);
      process.stderr.write(`Alerts: MP ingest of ${CARS} cars in a ${cycle} s cycle with 10 rules each and with none, alternating...\n`);
      const pair = await runAlertsIngest(
        () => startServerProcess(dataDir, DATABASE.args),
        { dataDir, database: DATABASE.url },
        ownerId,
        ids.slice(0, 2 * ALERTS_ROUNDS * CARS),
        CARS,
        PASSWORD,
        SECONDS,
        cycle,
      );
      reports.push(reportAlerts(pair));
    }
    if (wanted === 'fleet') {
      process.stderr.write(`Fleet: ${FLEET_CARS} parked cars from their own addresses, a reconnect storm, ${NAT_CARS} cars from one address...\n`);
      // the app's one-car reference server: a data folder (and on PostgreSQL a schema) of its own
      const referenceDir = mkdtempSync(join(tmpdir(), 'vts-bench-reference-'));
      const referenceDatabase = benchDatabase(values.database, 'reference');
      await provision(referenceDir, 1, referenceDatabase.url);
      const r = await runFleet({
        dataDir,
        databaseArgs: DATABASE.args,
        reference: { dataDir: referenceDir, databaseArgs: referenceDatabase.args },
        ids,
        password: PASSWORD,
        account: ACCOUNT,
        cars: FLEET_CARS,
        charging: FLEET_CHARGING,
        natCars: NAT_CARS,
        idleSeconds: Number(values['fleet-idle-seconds']),
        settleSeconds: Number(values['fleet-settle-seconds']),
        appSeconds: Number(values['fleet-app-seconds']),
        retryMaxMs: 10_000,
      }).finally(async () => {
        await referenceDatabase.drop();
        rmSync(referenceDir, { recursive: true, force: true });
      });
      reports.push(reportFleet(r));
    }
    if (wanted === 'fleet-cluster') {
      const seconds = Number(values['fleet-idle-seconds']);
      process.stderr.write(`Fleet on a cluster: ${FLEET_CLUSTER_CARS} parked cars on two nodes (PostgreSQL, Redis): a window silent, one of parked traffic (${seconds} s, rounded up to whole minutes), kill -9 of one node...\n`);
      const r = await runFleetCluster({
        dataDir,
        databaseArgs: DATABASE.args,
        databaseUrl: DATABASE.url!,
        schema: DATABASE.schema!,
        redisUrl: values.redis,
        ids,
        password: PASSWORD,
        account: ACCOUNT,
        cars: FLEET_CLUSTER_CARS,
        charging: FLEET_CHARGING,
        windowSeconds: seconds,
      });
      reports.push(reportFleetCluster(r));
    }
    if (!wanted || wanted === 'history') {
      // a day's expired rows: what HISTORY_VEHICLES busy cars write in a day at the firmware's rate
      const expired = values['history-expired'] === undefined ? Math.min(HISTORY_VEHICLES * BUSY_ROWS_PER_DAY, Math.floor(HISTORY_ROWS / 2)) : Number(values['history-expired']);
      process.stderr.write(`History: ${HISTORY_ROWS} rows over ${HISTORY_VEHICLES} vehicles, GET /api/historical latency, the purge of ${expired} expired rows during MP ingest of ${CARS} cars...\n`);
      const r = await runHistoryBench({
        dataDir,
        database: DATABASE.url,
        start: (onLogLine) => startServerProcess(dataDir, [...DATABASE.args, '--rate-limit-burst', '0', '--log-level', 'info'], { onLine: onLogLine }),
        account: ACCOUNT,
        historyIds: ids.slice(0, HISTORY_VEHICLES),
        ingestIds: ids.slice(HISTORY_VEHICLES, HISTORY_VEHICLES + CARS),
        carPassword: PASSWORD,
        rows: HISTORY_ROWS,
        expired,
        samples: Number(values['history-samples']),
      });
      reports.push(reportHistory(r));
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await DATABASE.drop();
  }
  process.stdout.write('\n' + reports.join('\n\n') + '\n');
}

await main();
