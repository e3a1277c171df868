/**
 * MP ingest: N car connections on loopback, each repeatedly sending one S, D and L message
 * followed by a ping `A` and waiting for the `a` (one "batch"). Reports car messages processed
 * per second (S/D/L; pings counted apart), batch round-trip percentiles and the server's RSS.
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
  seconds: number;
  batches: number;
  carMessagesPerSecond: number;
  linesPerSecond: number;
  rttP50Ms: number;
  rttP99Ms: number;
  serverRssBytes: number;
}

export async function runIngest(
  server: ServerProcess,
  vehicles: readonly string[],
  password: string,
  seconds: number,
): Promise<IngestResult> {
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
  const started = process.hrtime.bigint();
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, server.rss())), 250);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  measuring = false;
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(rssTimer);
  peakRss = Math.max(peakRss, server.rss());
  stop = true;
  await Promise.race([Promise.all(loops), new Promise((r) => setTimeout(r, 2000))]);
  for (const car of cars) car.close();

  rtts.sort((a, b) => a - b);
  return {
    cars: cars.length,
    seconds: elapsed,
    batches,
    carMessagesPerSecond: (batches * 3) / elapsed,
    linesPerSecond: (batches * 4) / elapsed,
    rttP50Ms: percentile(rtts, 50),
    rttP99Ms: percentile(rtts, 99),
    serverRssBytes: peakRss,
  };
}

export function reportIngest(r: IngestResult): string {
  return [
    `MP ingest: ${r.cars} cars, ${fmt(r.seconds, 1)} s`,
    `  car messages (S/D/L) per second: ${fmt(r.carMessagesPerSecond)}  (all lines incl. pings: ${fmt(r.linesPerSecond)}/s)`,
    `  batch round trip (S+D+L+A → a): p50 ${fmt(r.rttP50Ms, 2)} ms, p99 ${fmt(r.rttP99Ms, 2)} ms (${fmt(r.batches)} batches)`,
    `  server RSS (peak): ${mib(r.serverRssBytes)}`,
  ].join('\n');
}
