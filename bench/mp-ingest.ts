/**
 * MP ingest: N car connections on loopback, each repeatedly sending one S, D and L message
 * followed by a ping `A` and waiting for the `a` (one "batch"). Optionally an app watches each of
 * the first `apps` cars: the server forwards a car message only once it is committed, so with
 * apps the store commits once per event-loop turn instead of every 100 ms. Reports car messages
 * processed per second (S/D/L; pings counted apart), batch round-trip percentiles, messages
 * forwarded to the apps, the server's CPU use and its RSS.
 */
import type { ServerProcess } from './lib/server-process.js';
import { BenchCar } from './lib/car.js';
import { fmt, mib, percentile } from './lib/stats.js';

// Real FW3-shaped payloads (from the reference transcripts).
const S = 'S80,K,230,16,charging,standard,350,320,16,123,0,5.5,3,1,0,0,0,0,160,60,30,400,90,0,0,0,4000,20,85,450,type2,3.7,390.5,98,3.8,95,-10.5,45,6.2,1234.5,64.0';
const D = 'D140,8,4,30,40,25,123,12345,0,0,20,2,1,1,12.5,4,12.6,16,35,1.2,21';
const L = 'L51.500000,-0.100000,90,20,1,1,0,123,2,5.5,100,10,2,95,AA,9,0.9,0.0,80';

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
}

export async function runIngest(
  server: ServerProcess,
  vehicles: readonly string[],
  password: string,
  seconds: number,
  appCount = 0,
): Promise<IngestResult> {
  const apps = await Promise.all(vehicles.slice(0, appCount).map((id) => BenchCar.connect(server.mpPort, id, password, 'A')));
  let forwarded = 0;
  let counting = false;
  for (const app of apps) {
    app.onMessage = (code) => {
      if (counting && (code === 'S' || code === 'D' || code === 'L')) forwarded++;
    };
  }
  const cars = await Promise.all(vehicles.map((id) => BenchCar.connect(server.mpPort, id, password)));
  const rtts: number[] = [];
  let batches = 0;
  let measuring = false;
  let stop = false;
  let peakRss = 0;

  const loops = cars.map(
    (car, k) =>
      new Promise<void>((resolve) => {
        let sentAt = 0n;
        // vary the payload a little so the store does real work
        const s = S.replace('S80', `S${50 + (k % 50)}`);
        const next = (): void => {
          if (stop) return resolve();
          sentAt = process.hrtime.bigint();
          car.sendAll([s, D, L, 'A']);
        };
        car.onMessage = (code) => {
          if (code !== 'a') return;
          if (measuring) {
            rtts.push(Number(process.hrtime.bigint() - sentAt) / 1e6);
            batches++;
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
  const cpuBefore = server.cpuSeconds();
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, server.rss())), 250);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  measuring = false;
  counting = false;
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = server.cpuSeconds() - cpuBefore;
  clearInterval(rssTimer);
  peakRss = Math.max(peakRss, server.rss());
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
    serverCpuShare: cpu / elapsed,
    serverRssBytes: peakRss,
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
