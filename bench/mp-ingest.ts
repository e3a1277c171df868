/**
 * MP ingest: N car connections on loopback, each repeatedly sending one S, D and L message
 * followed by a ping `A` and waiting for the `a` (one "batch"). Optionally an app watches each of
 * the first `apps` cars: the server forwards a car message only once it is committed, so with
 * apps the store commits once per event-loop turn instead of every 100 ms. Reports car messages
 * processed per second (S/D/L; pings counted apart), batch round-trip percentiles, messages
 * forwarded to the apps, the server's CPU use and its RSS. Given several servers (the nodes of a
 * cluster), car k (and its app) connects to server k mod n, and the figures come per server too.
 */
import type { ServerProcess } from './lib/server-process.js';
import { BenchCar } from './lib/car.js';
import { D, L, S } from './lib/payloads.js';
import { fmt, mib, percentile } from './lib/stats.js';
import { machineBusySeconds } from './lib/proc.js';

export interface IngestResult {
  cars: number;
  apps: number;
  /** S/D/L messages the apps received per second. */
  forwardedPerSecond: number;
  seconds: number;
  batches: number;
  carMessagesPerSecond: number;
  linesPerSecond: number;
  rttP50Ms: number;
  rttP99Ms: number;
  /** Server CPU time (user + system) over the measuring time, as a share of one core. */
  serverCpuShare: number;
  serverRssBytes: number;
  /** This process's (the load generator's) CPU time over the measuring time, as a share of one core. */
  generatorCpuShare: number;
  /** The rest of the machine's busy CPU over the measuring time (other processes: noise), as a share of one core. */
  otherCpuShare: number;
  /** Per server, in the order given (one entry for one server). */
  perServer: { cars: number; carMessagesPerSecond: number; cpuShare: number; peakRssBytes: number }[];
}

export async function runIngest(
  servers: readonly ServerProcess[],
  vehicles: readonly string[],
  password: string,
  seconds: number,
  appCount = 0,
  /** The messages of car `k`'s batch `n` (default: the same S, D, L every time). */
  payloads?: (k: number, n: number) => string[],
): Promise<IngestResult> {
  const serverOf = (k: number): number => k % servers.length;
  const apps = await Promise.all(vehicles.slice(0, appCount).map((id, k) => BenchCar.connect(servers[serverOf(k)]!.mpPort, id, password, 'A')));
  let forwarded = 0;
  let counting = false;
  for (const app of apps) {
    app.onMessage = (code) => {
      if (counting && (code === 'S' || code === 'D' || code === 'L')) forwarded++;
    };
  }
  const cars = await Promise.all(vehicles.map((id, k) => BenchCar.connect(servers[serverOf(k)]!.mpPort, id, password)));
  const rtts: number[] = [];
  let batches = 0;
  const batchesOf = servers.map(() => 0);
  let measuring = false;
  let stop = false;
  const peakRss = servers.map(() => 0);

  const loops = cars.map(
    (car, k) =>
      new Promise<void>((resolve) => {
        let sentAt = 0n;
        // vary the payload a little so the store does real work
        const s = S.replace('S80', `S${50 + (k % 50)}`);
        let n = 0;
        const next = (): void => {
          if (stop) return resolve();
          sentAt = process.hrtime.bigint();
          car.sendAll(payloads ? [...payloads(k, n++), 'A'] : [s, D, L, 'A']);
        };
        car.onMessage = (code) => {
          if (code !== 'a') return;
          if (measuring) {
            rtts.push(Number(process.hrtime.bigint() - sentAt) / 1e6);
            batches++;
            batchesOf[serverOf(k)]!++;
          }
          next();
        };
        next();
      }),
  );

  await new Promise((r) => setTimeout(r, 1000)); // warm-up
  measuring = true;
  counting = true;
  const started = process.hrtime.bigint();
  const cpuBefore = servers.map((s) => s.cpuSeconds());
  const generatorBefore = process.cpuUsage();
  const machineBefore = machineBusySeconds();
  const sampleRss = (): void => servers.forEach((s, i) => (peakRss[i] = Math.max(peakRss[i]!, s.rss())));
  const rssTimer = setInterval(sampleRss, 250);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  measuring = false;
  counting = false;
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = servers.map((s, i) => s.cpuSeconds() - cpuBefore[i]!);
  const generator = process.cpuUsage(generatorBefore);
  const machine = machineBusySeconds() - machineBefore;
  clearInterval(rssTimer);
  sampleRss();
  stop = true;
  await Promise.race([Promise.all(loops), new Promise((r) => setTimeout(r, 2000))]);
  for (const car of cars) car.close();
  for (const app of apps) app.close();

  rtts.sort((a, b) => a - b);
  return {
    cars: cars.length,
    apps: apps.length,
    forwardedPerSecond: forwarded / elapsed,
    seconds: elapsed,
    batches,
    carMessagesPerSecond: (batches * 3) / elapsed,
    linesPerSecond: (batches * 4) / elapsed,
    rttP50Ms: percentile(rtts, 50),
    rttP99Ms: percentile(rtts, 99),
    serverCpuShare: cpu.reduce((a, b) => a + b, 0) / elapsed,
    serverRssBytes: peakRss.reduce((a, b) => a + b, 0),
    generatorCpuShare: (generator.user + generator.system) / 1e6 / elapsed,
    otherCpuShare: Math.max(0, machine - cpu.reduce((a, b) => a + b, 0) - (generator.user + generator.system) / 1e6) / elapsed,
    perServer: servers.map((_s, i) => ({
      cars: cars.filter((_c, k) => serverOf(k) === i).length,
      carMessagesPerSecond: (batchesOf[i]! * 3) / elapsed,
      cpuShare: cpu[i]! / elapsed,
      peakRssBytes: peakRss[i]!,
    })),
  };
}

export function reportIngest(r: IngestResult): string {
  return [
    `MP ingest: ${r.cars} cars${r.apps > 0 ? `, an app on ${r.apps} of them` : ''}, ${fmt(r.seconds, 1)} s`,
    `  car messages (S/D/L) per second: ${fmt(r.carMessagesPerSecond)}  (all lines incl. pings: ${fmt(r.linesPerSecond)}/s)`,
    `  batch round trip (S+D+L+A → a): p50 ${fmt(r.rttP50Ms, 2)} ms, p99 ${fmt(r.rttP99Ms, 2)} ms (${fmt(r.batches)} batches)`,
    ...(r.apps > 0 ? [`  forwarded to the apps (after the commit): ${fmt(r.forwardedPerSecond)} car messages/s`] : []),
    `  server CPU: ${fmt(r.serverCpuShare * 100)} % of one core, ${fmt((r.serverCpuShare * 1e6) / r.carMessagesPerSecond, 2)} µs per car message`,
    `  server RSS (peak): ${mib(r.serverRssBytes)}`,
  ].join('\n');
}
