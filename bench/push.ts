/**
 * Push notifications (issue 15): `subscriptions` app subscriptions (half FCM, half APNs) spread
 * over the alert vehicles, written to the store directly; a local FCM endpoint (HTTP, with its
 * OAuth token exchange) and a local APNs endpoint (HTTP/2 over TLS) in this process, both
 * answering every request `delayMs` late; a `vts serve` that delivers to them with no per-vehicle
 * rate limit (`--push-limit 0/0`).
 *
 * 1. Isolated alerts: one car raises one `P` alert at a time, no other load; alert → endpoint
 *    latency unloaded. One alert before them warms up the providers (the FCM token exchange, the
 *    APNs connection) and is not counted.
 * 2. One burst (as below) with no other load: what the dispatcher does on its own, and its server
 *    CPU per delivery.
 * 3. Rounds: the ingest cars (the MP ingest loop: S, D, L and a ping per batch) run all along; each
 *    round measures ingest alone for ALONE_SECONDS, then during a burst: every alert car sends
 *    `alertsPerCar` `P` alerts in one write. The burst window lasts from the first alert until the
 *    outbox has no open delivery left (polled in the store). One more alone window ends the run,
 *    so the alone and burst windows alternate.
 *
 * Every endpoint request is matched to its alert by the alert's unique text (`#<number>`): the
 * latency is the request's arrival at the endpoint (before its delay) minus the time the car sent
 * the alert, both read in this process.
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { openStore } from '../src/store/open.js';
import type { Store } from '../src/store/store.js';
import { DEFAULT_DISPATCHER_OPTIONS } from '../src/push/dispatcher.js';
import { epochMs, startPushEndpoints } from './lib/push-endpoints.js';
import { BenchCar } from './lib/car.js';
import { D, L, S } from './lib/payloads.js';
import { machineBusySeconds, waitForQuiet } from './lib/proc.js';
import { startServerProcess, type ServerProcess } from './lib/server-process.js';
import { fmt, mib, percentile } from './lib/stats.js';

/** The APNs endpoint's certificate: the server trusts it through NODE_EXTRA_CA_CERTS. */
const CA_FILE = fileURLToPath(new URL('../test/fixtures/tls/cert.pem', import.meta.url));
/** Length of each window of ingest alone. */
const ALONE_SECONDS = 5;
/** Alerts raised one at a time before the rounds. */
const ISOLATED_ALERTS = 20;
/** A burst that has not drained by then is reported as it stands. */
const BURST_TIMEOUT_MS = 180_000;
const TEXT = 'Bench alert #';

export interface PushBenchOptions {
  dataDir: string;
  /** The store's database URL (undefined: SQLite in dataDir). */
  database: string | undefined;
  /** The server's options for that database. */
  databaseArgs: string[];
  /** The owner of every vehicle. */
  ownerId: number;
  /** Vehicles that get the subscriptions; their cars raise the alerts. */
  alertIds: readonly string[];
  /** Vehicles of the ingest cars (no subscriptions). */
  ingestIds: readonly string[];
  carPassword: string;
  subscriptions: number;
  /** Alerts each alert car sends per burst. */
  alertsPerCar: number;
  rounds: number;
  /** How late the endpoints answer (ms). */
  delayMs: number;
}

export interface PushWindow {
  kind: 'alone' | 'burst';
  round: number;
  seconds: number;
  carMessagesPerSecond: number;
  rttP50Ms: number;
  rttP99Ms: number;
  /** Shares of one core over the window. */
  serverCpuShare: number;
  generatorCpuShare: number;
  /** The local FCM and APNs endpoints' process. */
  endpointsCpuShare: number;
  otherCpuShare: number;
  serverPeakRssBytes: number;
}

export interface PushBurst {
  round: number;
  alerts: number;
  deliveries: number;
  /** First alert sent → last endpoint request (s). */
  deliverSeconds: number;
  deliveriesPerSecond: number;
  /** First alert sent → no open delivery in the outbox (s). */
  drainSeconds: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  /** Server CPU per delivery (µs); with ingest running, what the window used beyond its ingest at the alone window's CPU per message. */
  cpuPerDeliveryUs: number;
}

export interface PushResult {
  subscriptions: number;
  vehicles: number;
  ingestCars: number;
  alertsPerCar: number;
  delayMs: number;
  concurrency: number;
  isolated: { alerts: number; deliveries: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** The burst with no ingest running. */
  quiet: PushBurst;
  /** The bursts with ingest running. */
  bursts: PushBurst[];
  windows: PushWindow[];
  /** Endpoint requests that were not answered 200, carried no alert of ours, or came twice. */
  problems: { rejected: number; unmatched: number; duplicates: number };
  serverPeakRssBytes: number;
  serverRssBeforeBytes: number;
}

/** Endpoint requests by alert: arrival times (epochMs()). */
class Arrivals {
  readonly byAlert = new Map<number, number[]>();
  count = 0;
  last = 0;
  rejected = 0;
  unmatched = 0;
  private waiters: { count: number; resolve: () => void }[] = [];

  add(text: unknown, ok: boolean, at: number): void {
    if (!ok) this.rejected++;
    const m = typeof text === 'string' ? /#(\d+)$/.exec(text) : null;
    if (!m) {
      this.unmatched++;
      return;
    }
    const no = Number(m[1]);
    const list = this.byAlert.get(no) ?? [];
    list.push(at);
    this.byAlert.set(no, list);
    this.count++;
    this.last = at;
    this.waiters = this.waiters.filter((w) => (this.count >= w.count ? (w.resolve(), false) : true));
  }

  /** Resolves true once `count` requests arrived in all, false after `timeoutMs`. */
  waitFor(count: number, timeoutMs: number): Promise<boolean> {
    if (this.count >= count) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(true)) });
    });
  }
}

/** The ingest cars' loop (as bench/mp-ingest.ts), running until stopped; counts batches. */
class IngestLoad {
  batches = 0;
  rtts: number[] = [];
  private stopping = false;
  private readonly loops: Promise<void>[];

  constructor(cars: readonly BenchCar[]) {
    this.loops = cars.map(
      (car, k) =>
        new Promise<void>((resolve) => {
          let sentAt = 0;
          const s = S.replace('S80', `S${50 + (k % 50)}`);
          const next = (): void => {
            if (this.stopping) return resolve();
            sentAt = performance.now();
            car.sendAll([s, D, L, 'A']);
          };
          car.onMessage = (code) => {
            if (code !== 'a') return;
            this.rtts.push(performance.now() - sentAt);
            this.batches++;
            next();
          };
          next();
        }),
    );
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.race([Promise.all(this.loops), new Promise((r) => setTimeout(r, 2000))]);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function openDeliveries(store: Store): Promise<number> {
  let n = 0;
  for (const count of (await store.push.countOpen()).values()) n += count;
  return n;
}

/** Polls the outbox until no delivery is open; the time it saw that, or NaN after the deadline. */
async function drained(store: Store, deadline: number): Promise<number> {
  for (;;) {
    if ((await openDeliveries(store)) === 0) return epochMs();
    if (epochMs() > deadline) return NaN;
    await sleep(10);
  }
}

export async function runPushBench(o: PushBenchOptions): Promise<PushResult> {
  const endpoints = await startPushEndpoints(o.delayMs);
  const { fcm, apns } = endpoints;
  const store = await openStore(o.dataDir, { database: o.database });
  let server: ServerProcess | undefined;
  const cars: BenchCar[] = [];
  try {
    // the subscriptions: app k of vehicle k mod n; even k FCM (push type gcm), odd k APNs
    const subsOf = new Map<string, number>();
    for (let k = 0; k < o.subscriptions; k++) {
      const vehicleId = o.alertIds[k % o.alertIds.length]!;
      const fcmSub = k % 2 === 0;
      await store.upsertPushSubscription({
        ownerId: o.ownerId,
        vehicleId,
        appId: `bench-${k}`,
        pushType: fcmSub ? 'gcm' : 'apns',
        pushKeyType: 'production',
        pushKeyValue: fcmSub ? `bench-fcm-token-${k}` : k.toString(16).padStart(64, '0'),
        lastUpdated: Math.floor(Date.now() / 1000),
        active: true,
      });
      subsOf.set(vehicleId, (subsOf.get(vehicleId) ?? 0) + 1);
    }

    server = await startServerProcess(
      o.dataDir,
      [
        ...o.databaseArgs,
        '--push-limit',
        '0/0',
        '--fcm-service-account',
        fcm.serviceAccountFile,
        '--fcm-url',
        fcm.url,
        '--apns-key',
        apns.settings.keyFile,
        '--apns-key-id',
        apns.settings.keyId,
        '--apns-team-id',
        apns.settings.teamId,
        '--apns-topic',
        apns.settings.topic,
        '--apns-url',
        apns.url,
      ],
      { env: { NODE_EXTRA_CA_CERTS: CA_FILE } },
    );
    const srv = server;

    const arrivals = new Arrivals();
    endpoints.onArrival = (text, ok, at) => arrivals.add(text, ok, at);

    const alertCars = await Promise.all(o.alertIds.map((id) => BenchCar.connect(srv.mpPort, id, o.carPassword)));
    cars.push(...alertCars);
    const sentAt = new Map<number, number>();
    let nextAlert = 1;
    const latenciesOf = (from: number, to: number): number[] => {
      const out: number[] = [];
      for (let no = from; no < to; no++) for (const at of arrivals.byAlert.get(no) ?? []) out.push(at - sentAt.get(no)!);
      return out.sort((a, b) => a - b);
    };

    // 1. isolated alerts, one at a time
    await waitForQuiet(0.2, 30_000);
    let isolatedFrom = nextAlert;
    let isolatedDeliveries = 0;
    // the first alert warms up (the FCM token exchange, the APNs connection) and is not counted
    for (let i = 0; i <= ISOLATED_ALERTS; i++) {
      if (i === 1) isolatedFrom = nextAlert;
      const k = i % alertCars.length;
      const no = nextAlert++;
      const expected = arrivals.count + (subsOf.get(o.alertIds[k]!) ?? 0);
      sentAt.set(no, epochMs());
      alertCars[k]!.sendAll([`PA${TEXT}${no}`]);
      if (!(await arrivals.waitFor(expected, 30_000))) throw new Error(`push: alert ${no} did not reach every endpoint within 30 s`);
      isolatedDeliveries += subsOf.get(o.alertIds[k]!) ?? 0;
      await drained(store, epochMs() + 30_000);
    }
    const isolated = latenciesOf(isolatedFrom, nextAlert);

    /** Every alert car sends `alertsPerCar` alerts in one write; resolves once the outbox is empty. */
    const burst = async (round: number): Promise<Omit<PushBurst, 'cpuPerDeliveryUs'>> => {
      const from = nextAlert;
      const wanted = o.subscriptions * o.alertsPerCar;
      const expected = arrivals.count + wanted;
      const t0 = epochMs();
      for (const car of alertCars) {
        const lines: string[] = [];
        const at = epochMs();
        for (let a = 0; a < o.alertsPerCar; a++) {
          const no = nextAlert++;
          sentAt.set(no, at);
          lines.push(`PA${TEXT}${no}`);
        }
        car.sendAll(lines);
      }
      if (!(await arrivals.waitFor(expected, BURST_TIMEOUT_MS))) {
        process.stderr.write(`  burst ${round}: only ${fmt(arrivals.count - expected + wanted)} of ${fmt(wanted)} deliveries arrived in ${BURST_TIMEOUT_MS / 1000} s\n`);
      }
      const last = arrivals.last;
      const drainedAt = await drained(store, t0 + BURST_TIMEOUT_MS);
      const latencies = latenciesOf(from, nextAlert);
      return {
        round,
        alerts: nextAlert - from,
        deliveries: latencies.length,
        deliverSeconds: (last - t0) / 1000,
        deliveriesPerSecond: latencies.length / ((last - t0) / 1000),
        drainSeconds: (drainedAt - t0) / 1000,
        latencyP50Ms: percentile(latencies, 50),
        latencyP99Ms: percentile(latencies, 99),
        latencyMaxMs: latencies[latencies.length - 1] ?? NaN,
      };
    };

    // 2. one burst with no other load: what the dispatcher does on its own
    const cpuQuiet = srv.cpuSeconds();
    const q = await burst(0);
    const quiet: PushBurst = { ...q, cpuPerDeliveryUs: ((srv.cpuSeconds() - cpuQuiet) / q.deliveries) * 1e6 };
    process.stderr.write(`  burst with no ingest: ${fmt(q.deliveries)} deliveries, ${fmt(q.deliveriesPerSecond)}/s, drained in ${fmt(q.drainSeconds, 2)} s\n`);

    // 3. the rounds, with the ingest cars busy all along
    const ingestCars = await Promise.all(o.ingestIds.map((id) => BenchCar.connect(srv.mpPort, id, o.carPassword)));
    cars.push(...ingestCars);
    const serverRssBefore = srv.rss();
    const load = new IngestLoad(ingestCars);
    await sleep(1000); // warm-up

    let windowPeak = 0;
    const rssTimer = setInterval(() => (windowPeak = Math.max(windowPeak, srv.rss())), 250);
    const windows: PushWindow[] = [];
    const measure = async (kind: PushWindow['kind'], round: number, body: () => Promise<void>): Promise<PushWindow> => {
      const batches = load.batches;
      load.rtts = [];
      windowPeak = srv.rss();
      const cpu = srv.cpuSeconds();
      const generator = process.cpuUsage();
      const endpointsCpu = endpoints.cpuSeconds();
      const machine = machineBusySeconds();
      const started = performance.now();
      await body();
      const seconds = (performance.now() - started) / 1000;
      const serverCpu = srv.cpuSeconds() - cpu;
      const gen = process.cpuUsage(generator);
      const genCpu = (gen.user + gen.system) / 1e6;
      const epCpu = endpoints.cpuSeconds() - endpointsCpu;
      const rtts = load.rtts.sort((a, b) => a - b);
      const w: PushWindow = {
        kind,
        round,
        seconds,
        carMessagesPerSecond: ((load.batches - batches) * 3) / seconds,
        rttP50Ms: percentile(rtts, 50),
        rttP99Ms: percentile(rtts, 99),
        serverCpuShare: serverCpu / seconds,
        generatorCpuShare: genCpu / seconds,
        endpointsCpuShare: epCpu / seconds,
        otherCpuShare: Math.max(0, machineBusySeconds() - machine - serverCpu - genCpu - epCpu) / seconds,
        serverPeakRssBytes: Math.max(windowPeak, srv.rss()),
      };
      windows.push(w);
      return w;
    };
    const alone = (round: number): Promise<PushWindow> => measure('alone', round, () => sleep(ALONE_SECONDS * 1000));

    const bursts: PushBurst[] = [];
    for (let round = 1; round <= o.rounds; round++) {
      const before = await alone(round);
      let b: Omit<PushBurst, 'cpuPerDeliveryUs'> | undefined;
      const w = await measure('burst', round, async () => {
        b = await burst(round);
      });
      // the server's CPU beyond what the window's ingest cost at the alone window's CPU per message
      const ingestCpu = w.carMessagesPerSecond * w.seconds * (before.serverCpuShare / before.carMessagesPerSecond);
      bursts.push({ ...b!, cpuPerDeliveryUs: ((w.serverCpuShare * w.seconds - ingestCpu) / b!.deliveries) * 1e6 });
      process.stderr.write(
        `  round ${round}: ingest alone ${fmt(before.carMessagesPerSecond)}/s, during the burst ${fmt(w.carMessagesPerSecond)}/s; ` +
          `${fmt(b!.deliveries)} deliveries, ${fmt(b!.deliveriesPerSecond)}/s, drained in ${fmt(b!.drainSeconds, 2)} s\n`,
      );
    }
    await alone(o.rounds + 1);
    clearInterval(rssTimer);
    await load.stop();

    const seen = [...arrivals.byAlert.values()];
    return {
      subscriptions: o.subscriptions,
      vehicles: o.alertIds.length,
      ingestCars: ingestCars.length,
      alertsPerCar: o.alertsPerCar,
      delayMs: o.delayMs,
      concurrency: DEFAULT_DISPATCHER_OPTIONS.concurrency,
      isolated: {
        alerts: ISOLATED_ALERTS,
        deliveries: isolated.length,
        p50Ms: percentile(isolated, 50),
        p99Ms: percentile(isolated, 99),
        maxMs: isolated[isolated.length - 1] ?? NaN,
      },
      quiet,
      bursts,
      windows,
      problems: {
        rejected: arrivals.rejected,
        unmatched: arrivals.unmatched,
        // each alert reaches each subscription of its vehicle once
        duplicates: seen.reduce((a, list) => a + list.length, 0) - (isolatedDeliveries + o.subscriptions * o.alertsPerCar * (bursts.length + 1)),
      },
      serverPeakRssBytes: srv.peakRss(),
      serverRssBeforeBytes: serverRssBefore,
    };
  } finally {
    for (const car of cars) car.close();
    await server?.stop();
    await store.close();
    await endpoints.close();
  }
}

function sumWindows(ws: readonly PushWindow[]): {
  perSecond: number;
  serverCpu: number;
  generatorCpu: number;
  endpointsCpu: number;
  otherCpu: number;
  seconds: number;
  peak: number;
} {
  const seconds = ws.reduce((a, w) => a + w.seconds, 0);
  const total = (f: (w: PushWindow) => number): number => ws.reduce((a, w) => a + f(w) * w.seconds, 0) / seconds;
  return {
    seconds,
    perSecond: total((w) => w.carMessagesPerSecond),
    serverCpu: total((w) => w.serverCpuShare),
    generatorCpu: total((w) => w.generatorCpuShare),
    endpointsCpu: total((w) => w.endpointsCpuShare),
    otherCpu: total((w) => w.otherCpuShare),
    peak: Math.max(...ws.map((w) => w.serverPeakRssBytes)),
  };
}

export function reportPush(r: PushResult): string {
  const alone = sumWindows(r.windows.filter((w) => w.kind === 'alone'));
  const during = sumWindows(r.windows.filter((w) => w.kind === 'burst'));
  const deliveries = r.bursts.reduce((a, b) => a + b.deliveries, 0);
  const deliverSeconds = r.bursts.reduce((a, b) => a + b.deliverSeconds, 0);
  const share = during.perSecond / alone.perSecond;
  const pct = (x: number): string => `${fmt(x * 100)} %`;
  const ceiling = (2 * r.concurrency * 1000) / r.delayMs;
  const lines = [
    `Push notifications: ${fmt(r.subscriptions)} subscriptions (half FCM, half APNs) on ${r.vehicles} vehicles, endpoints answering after ${r.delayMs} ms, --push-limit 0/0 (no rate limit); ${r.ingestCars} ingest cars`,
    `  isolated alerts (one at a time, no ingest): ${r.isolated.alerts} alerts, ${fmt(r.isolated.deliveries)} deliveries: alert → endpoint p50 ${fmt(r.isolated.p50Ms, 1)} ms, p99 ${fmt(r.isolated.p99Ms, 1)} ms, max ${fmt(r.isolated.maxMs, 1)} ms`,
    `  bursts: ${r.alertsPerCar} alerts per car, ${fmt(r.vehicles * r.alertsPerCar)} alerts → ${fmt(r.subscriptions * r.alertsPerCar)} deliveries each`,
    `    no ingest:  ${burstLine(r.quiet)}`,
    ...r.bursts.map((b) => `    ingest, ${b.round}: ${burstLine(b)}`),
    `  deliveries/s over the bursts with ingest: ${fmt(deliveries / deliverSeconds)} (ceiling of ${r.concurrency} requests in flight per provider × 2 providers / ${r.delayMs} ms: ${fmt(ceiling)}/s)`,
    `  MP ingest alone: ${fmt(alone.perSecond)} car messages/s (${r.windows.filter((w) => w.kind === 'alone').length} windows, ${fmt(alone.seconds, 1)} s); server CPU ${pct(alone.serverCpu)}, ` +
      `generator ${pct(alone.generatorCpu)}, endpoints ${pct(alone.endpointsCpu)}, other ${pct(alone.otherCpu)} of one core`,
    `  MP ingest during the bursts: ${fmt(during.perSecond)} car messages/s (${fmt(during.seconds, 1)} s): ${pct(share)} of alone; server CPU ${pct(during.serverCpu)}, ` +
      `generator ${pct(during.generatorCpu)}, endpoints ${pct(during.endpointsCpu)}, other ${pct(during.otherCpu)} of one core`,
    `    per window (car messages/s): ${r.windows.map((w) => `${w.kind === 'alone' ? 'alone' : 'burst'} ${fmt(w.carMessagesPerSecond)}`).join(', ')}`,
    `    batch round trip alone p50 ${fmt(median(r.windows.filter((w) => w.kind === 'alone').map((w) => w.rttP50Ms)), 2)} ms / p99 ${fmt(median(r.windows.filter((w) => w.kind === 'alone').map((w) => w.rttP99Ms)), 2)} ms, ` +
      `during p50 ${fmt(median(r.windows.filter((w) => w.kind === 'burst').map((w) => w.rttP50Ms)), 2)} ms / p99 ${fmt(median(r.windows.filter((w) => w.kind === 'burst').map((w) => w.rttP99Ms)), 2)} ms (medians of the windows)`,
    `  target (ingest during a burst ≥ 90 % of alone): ${share >= 0.9 ? 'met' : 'NOT met'} (${pct(share)})`,
    `  server RSS: ${mib(r.serverRssBeforeBytes)} before the rounds, peak ${mib(alone.peak)} in the alone windows, ${mib(during.peak)} during the bursts (VmHWM ${mib(r.serverPeakRssBytes)})`,
  ];
  const p = r.problems;
  if (p.rejected + p.unmatched + p.duplicates > 0) lines.push(`  endpoint problems: ${p.rejected} not answered 200, ${p.unmatched} without a bench alert, ${p.duplicates} more than expected`);
  return lines.join('\n');
}

function burstLine(b: PushBurst): string {
  return (
    `${fmt(b.deliveriesPerSecond)} deliveries/s (${fmt(b.deliveries)} in ${fmt(b.deliverSeconds, 2)} s), latency p50 ${fmt(b.latencyP50Ms)} ms, ` +
    `p99 ${fmt(b.latencyP99Ms)} ms, max ${fmt(b.latencyMaxMs)} ms; outbox empty after ${fmt(b.drainSeconds, 2)} s; ${fmt(b.cpuPerDeliveryUs)} µs server CPU per delivery`
  );
}

function median(xs: readonly number[]): number {
  return percentile([...xs].sort((a, b) => a - b), 50);
}
