/**
 * HTTP API: `GET /api/status/<id>` (a car has sent S and D) under load with autocannon, once with
 * a session cookie and once with `username` + API token in the query. Reports requests/s and
 * latency percentiles; then a call answered 404 before authentication, as the ceiling of the
 * listener itself on this machine. The server runs with its rate limiter off.
 */
import autocannon from 'autocannon';
import type { ServerProcess } from './lib/server-process.js';
import { BenchCar } from './lib/car.js';
import { cookieLogin, D, S } from './lib/payloads.js';
import { fmt, mib } from './lib/stats.js';

export interface HttpResult {
  label: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}


function run(url: string, headers: Record<string, string>, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers, connections: 50, pipelining: 1, duration: seconds }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

export async function runHttp(
  server: ServerProcess,
  opts: { vehicleId: string; carPassword: string; user: string; password: string; token: string; seconds: number },
): Promise<{ results: HttpResult[]; rssBytes: number }> {
  const car = await BenchCar.connect(server.mpPort, opts.vehicleId, opts.carPassword);
  car.sendAll([S, D]);
  const base = `http://127.0.0.1:${server.httpPort}`;
  const cookie = await cookieLogin(server.httpPort, opts.user, opts.password);
  const probe = await fetch(`${base}/api/status/${opts.vehicleId}`, { headers: { cookie } });
  if (probe.status !== 200) throw new Error(`status probe failed: ${probe.status}`);

  const results: HttpResult[] = [];
  const cases: [string, string, Record<string, string>][] = [
    ['cookie', `${base}/api/status/${opts.vehicleId}`, { cookie }],
    ['token', `${base}/api/status/${opts.vehicleId}?username=${opts.user}&password=${opts.token}`, {}],
    // the listener's own ceiling on this machine: a 404 answered before authentication
    ['floor', `${base}/api/nosuchcall`, {}],
  ];
  for (const [label, url, headers] of cases) {
    await run(url, headers, 1); // warm-up
    const r = await run(url, headers, opts.seconds);
    results.push({
      label,
      requestsPerSecond: r.requests.average,
      p50Ms: r.latency.p50,
      p99Ms: r.latency.p99,
      non2xx: label === 'floor' ? 0 : r.non2xx,
      errors: r.errors,
    });
  }
  const rssBytes = server.rss();
  car.close();
  return { results, rssBytes };
}

export function reportHttp(r: { results: HttpResult[]; rssBytes: number }): string {
  const lines = ['HTTP GET /api/status/<id> (50 connections, keep-alive; "floor" = a 404 before authentication):'];
  for (const x of r.results) {
    lines.push(
      `  ${x.label.padEnd(6)} ${fmt(x.requestsPerSecond)} requests/s, latency p50 ${fmt(x.p50Ms, 1)} ms, p99 ${fmt(x.p99Ms, 1)} ms` +
        (x.non2xx || x.errors ? ` (non-2xx ${x.non2xx}, errors ${x.errors})` : ''),
    );
  }
  lines.push(`  server RSS afterwards: ${mib(r.rssBytes)}`);
  return lines.join('\n');
}
