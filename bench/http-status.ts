/**
 * HTTP API: `GET /api/status/<id>` (a car has sent S and D) under load, once with a session cookie
 * and once with `username` + API token in the query; then a call answered 404 before
 * authentication (the ceiling of vts's listener), and a bare node:http server that answers every
 * request with the very bytes vts answered the cookie request (captured once at the start), as
 * the ceiling of node itself on this machine: the ratio cookie / bare is the share of node's
 * speed that vts keeps. The load comes from wrk when installed (else autocannon), the same for
 * every case. The server runs with its rate limiter off.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { ServerProcess } from './lib/server-process.js';
import { BenchCar } from './lib/car.js';
import { httpLoad, type LoadTool } from './lib/http-load.js';
import { cookieLogin, D, S } from './lib/payloads.js';
import { rawGet, withoutClock, type RawAnswer } from './lib/raw-http.js';
import { cpuSecondsOf } from './lib/proc.js';
import { fmt, mib } from './lib/stats.js';

export interface HttpResult {
  label: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** CPU time the answering server used per request (µs): the figure the other processes on the machine move least. */
  cpuUsPerRequest: number;
}

export interface HttpReport {
  tool: LoadTool;
  results: HttpResult[];
  rssBytes: number;
}

const CONNECTIONS = 50;

/** The bare node:http server (bench/lib/bare-http-server.mjs) answering `answer`; resolves with its port and a stop. */
async function startBare(answer: RawAnswer): Promise<{ port: number; cpuSeconds: () => number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['bench/lib/bare-http-server.mjs'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const keepAlive = /timeout=(\d+)/.exec(answer.headers.find(([k]) => k.toLowerCase() === 'keep-alive')?.[1] ?? '');
  child.stdin!.end(
    JSON.stringify({
      statusCode: answer.statusCode,
      reason: answer.reason,
      headers: answer.headers,
      body: answer.body.toString('base64'),
      keepAliveTimeout: keepAlive ? Number(keepAlive[1]) * 1000 : 5000,
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bare server exited early (${code})`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  child.removeAllListeners('exit');
  return {
    port,
    cpuSeconds: () => cpuSecondsOf(child.pid!),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export async function runHttp(
  server: ServerProcess,
  opts: { vehicleId: string; carPassword: string; user: string; password: string; token: string; seconds: number; tool: LoadTool },
): Promise<HttpReport> {
  const car = await BenchCar.connect(server.mpPort, opts.vehicleId, opts.carPassword);
  car.sendAll([S, D]);
  const base = `http://127.0.0.1:${server.httpPort}`;
  const cookie = await cookieLogin(server.httpPort, opts.user, opts.password);
  const path = `/api/status/${opts.vehicleId}`;
  // wait until the car's records are stored, then take vts's answer as the bare server's
  let answer = await rawGet(server.httpPort, path, { cookie });
  for (let k = 0; k < 100 && !answer.body.includes('"m_msgtime_d"'); k++) {
    await new Promise((r) => setTimeout(r, 20));
    answer = await rawGet(server.httpPort, path, { cookie });
  }
  if (answer.statusCode !== 200) throw new Error(`status probe failed: ${answer.statusCode}`);
  const bare = await startBare(answer);
  try {
    const again = await rawGet(bare.port, path, { cookie });
    if (withoutClock(again) !== withoutClock(answer)) {
      throw new Error(`the bare server's answer differs from vts's:\n${withoutClock(answer)}\n---\n${withoutClock(again)}`);
    }
    const results: HttpResult[] = [];
    const vts = () => server.cpuSeconds();
    const cases: [string, string, Record<string, string>, () => number][] = [
      ['cookie', `${base}${path}`, { cookie }, vts],
      // node's own ceiling: the same request, the same answer bytes, nothing else
      ['bare', `http://127.0.0.1:${bare.port}${path}`, { cookie }, bare.cpuSeconds],
      ['token', `${base}${path}?username=${opts.user}&password=${opts.token}`, {}, vts],
      // the listener's own ceiling on this machine: a 404 answered before authentication
      ['floor', `${base}/api/nosuchcall`, {}, vts],
    ];
    for (const [label, url, headers, cpuSeconds] of cases) {
      await httpLoad(opts.tool, [{ url, headers, connections: CONNECTIONS }], 1); // warm-up
      const cpu0 = cpuSeconds();
      const r = (await httpLoad(opts.tool, [{ url, headers, connections: CONNECTIONS }], opts.seconds)).results[0]!;
      const cpuUsPerRequest = ((cpuSeconds() - cpu0) * 1e6) / (r.requestsPerSecond * Math.max(1, Math.round(opts.seconds)));
      results.push({ label, ...r, non2xx: label === 'floor' ? 0 : r.non2xx, cpuUsPerRequest });
    }
    return { tool: opts.tool, results, rssBytes: server.rss() };
  } finally {
    await bare.stop();
    car.close();
  }
}

export function reportHttp(r: HttpReport): string {
  const lines = [
    `HTTP GET /api/status/<id> (${r.tool}, ${CONNECTIONS} connections, keep-alive; "floor" = a 404 before authentication; "bare" = node:http answering the same bytes):`,
  ];
  for (const x of r.results) {
    lines.push(
      `  ${x.label.padEnd(6)} ${fmt(x.requestsPerSecond)} requests/s, latency p50 ${fmt(x.p50Ms, 1)} ms, p99 ${fmt(x.p99Ms, 1)} ms, server CPU ${fmt(x.cpuUsPerRequest, 1)} µs/request` +
        (x.non2xx || x.errors ? ` (non-2xx ${x.non2xx}, errors ${x.errors})` : ''),
    );
  }
  const of = (label: string): HttpResult | undefined => r.results.find((x) => x.label === label);
  const [cookie, bare] = [of('cookie'), of('bare')];
  if (cookie && bare) {
    lines.push(
      `  cookie / bare: ${fmt((100 * cookie.requestsPerSecond) / bare.requestsPerSecond)} % of the requests/s` +
        ` (CPU per request: bare / cookie ${fmt((100 * bare.cpuUsPerRequest) / cookie.cpuUsPerRequest)} %)`,
    );
  }
  lines.push(`  server RSS afterwards: ${mib(r.rssBytes)}`);
  return lines.join('\n');
}
