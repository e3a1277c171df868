/**
 * Idle connections: M cars log in (scheme 0) and stay silent; reports the server's RSS before and
 * after, and the RSS per idle connection.
 */
import type { ServerProcess } from './lib/server-process.js';
import { BenchCar } from './lib/car.js';
import { fmt, mib } from './lib/stats.js';

export interface IdleResult {
  connections: number;
  loginSeconds: number;
  rssBeforeBytes: number;
  rssAfterBytes: number;
  bytesPerConnection: number;
}

export async function runIdle(
  server: ServerProcess,
  vehicles: readonly string[],
  password: string,
  onProgress: (done: number) => void = () => {},
): Promise<IdleResult> {
  await new Promise((r) => setTimeout(r, 1000));
  const rssBefore = server.rss();
  const cars: BenchCar[] = [];
  const started = process.hrtime.bigint();
  const CONCURRENT = 200;
  for (let k = 0; k < vehicles.length; k += CONCURRENT) {
    const batch = vehicles.slice(k, k + CONCURRENT);
    cars.push(...(await Promise.all(batch.map((id) => BenchCar.connect(server.mpPort, id, password)))));
    if ((k / CONCURRENT) % 10 === 0) onProgress(cars.length);
  }
  const loginSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  await new Promise((r) => setTimeout(r, 3000)); // let the server settle (and collect garbage)
  const rssAfter = server.rss();
  for (const car of cars) car.close();
  return {
    connections: cars.length,
    loginSeconds,
    rssBeforeBytes: rssBefore,
    rssAfterBytes: rssAfter,
    bytesPerConnection: (rssAfter - rssBefore) / cars.length,
  };
}

export function reportIdle(r: IdleResult): string {
  return [
    `MP idle connections: ${fmt(r.connections)} cars logged in in ${fmt(r.loginSeconds, 1)} s (${fmt(r.connections / r.loginSeconds)} logins/s)`,
    `  server RSS: ${mib(r.rssBeforeBytes)} before, ${mib(r.rssAfterBytes)} with all connected`,
    `  RSS per idle connection: ${fmt(r.bytesPerConnection / 1024, 1)} KiB`,
  ].join('\n');
}
