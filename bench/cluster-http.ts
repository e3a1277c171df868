/**
 * `GET /api/status/<id>` through cluster nodes compared with one process, in the same run: wrk
 * (or autocannon) with 50 keep-alive connections in all, with a session cookie and with
 * `username` + API token, for each of: one node that is not clustered, one clustered node (its
 * peers idle), two clustered nodes (25 connections each, at once), and `vts serve --workers 2`
 * (50 connections on the shared port). A car on the single node and one on the cluster have
 * stored S and D before.
 *
 * Other processes on the machine (someone's tests) come and go within seconds, so the cases take
 * turns: `rounds` rounds of `roundSeconds` for every case, after a 1 s warm-up of each; a case's
 * figure is its requests over its time in all rounds. The CPU time of the servers, the
 * generator, Redis and the rest of the machine is summed the same way.
 */
import { BenchCar } from './lib/car.js';
import { cookieLogin, D, S } from './lib/payloads.js';
import { httpLoad, type LoadResult, type LoadTool } from './lib/http-load.js';
import { cpuOfNamed, cpuUsedSince, machineBusySeconds, rssOf, waitForQuiet } from './lib/proc.js';
import type { ServerProcess } from './lib/server-process.js';
import { fmt, mib } from './lib/stats.js';

const CONNECTIONS = 50;

export const ONE_NODE = 'one node (not clustered)';
export const CLUSTERED_ALONE = 'one clustered node';
export const TWO_NODES = 'two clustered nodes';
export const WORKERS = '--workers 2';

export interface StatusOptions {
  vehicleId: string;
  user: string;
  password: string;
  token: string;
  /** Measuring time of each case in each round (whole seconds). */
  roundSeconds: number;
  rounds: number;
  tool: LoadTool;
}

/** A server set under test: the servers whose CPU and memory count, and the HTTP ports loaded (connections split evenly). */
export interface StatusGroup {
  label: string;
  servers: ServerProcess[];
  ports: number[];
}

export interface StatusCase {
  label: string;
  auth: 'cookie' | 'token';
  /** All targets together, over all rounds. */
  requestsPerSecond: number;
  /** Each round's figure (all targets together). */
  rounds: number[];
  /** Per target: requests/s over all rounds; p50 the mean of the rounds', p99 the highest round's. */
  perTarget: LoadResult[];
  /** Shares of one core over the measured time (postgres: every process of that name on the machine). */
  cpu: Cpu;
  /** RSS of each server process after the last round (a `--workers` server: its primary and each worker). */
  rssBytes: number[];
}

/** A car that stores S and D on `server` and stays connected (closed by the caller). */
export async function statusCar(server: ServerProcess, vehicleId: string, carPassword: string): Promise<BenchCar> {
  const car = await BenchCar.connect(server.mpPort, vehicleId, carPassword);
  const pong = new Promise<void>((resolve) => (car.onMessage = (code) => code === 'a' && resolve()));
  car.sendAll([S, D, 'A']);
  await pong;
  await new Promise((r) => setTimeout(r, 300)); // committed (every 100 ms)
  return car;
}

const base = (port: number): string => `http://127.0.0.1:${port}`;

async function cookieFor(group: StatusGroup, opts: StatusOptions): Promise<string> {
  const cookie = await cookieLogin(group.ports[0]!, opts.user, opts.password);
  for (const port of group.ports) {
    const probe = await fetch(`${base(port)}/api/status/${opts.vehicleId}`, { headers: { cookie } });
    if (probe.status !== 200) throw new Error(`status probe on ${group.label} failed: ${probe.status}`);
  }
  return cookie;
}

interface Cpu {
  servers: number;
  generator: number;
  redis: number;
  postgres: number;
  other: number;
}

interface Tally {
  requests: number[];
  seconds: number;
  roundRates: number[];
  p50s: number[][];
  p99s: number[][];
  non2xx: number[];
  errors: number[];
  cpu: Cpu;
}

export async function measureStatus(groups: StatusGroup[], opts: StatusOptions, progress: (what: string) => void): Promise<StatusCase[]> {
  const cookies = new Map<StatusGroup, string>();
  for (const g of groups) cookies.set(g, await cookieFor(g, opts));
  const cases: StatusCase[] = [];
  for (const auth of ['cookie', 'token'] as const) {
    const targetsOf = (g: StatusGroup) =>
      g.ports.map((port) => ({
        url: `${base(port)}/api/status/${opts.vehicleId}` + (auth === 'token' ? `?username=${encodeURIComponent(opts.user)}&password=${opts.token}` : ''),
        headers: auth === 'cookie' ? { cookie: cookies.get(g)! } : ({} as Record<string, string>),
        connections: CONNECTIONS / g.ports.length,
      }));
    const tallies = groups.map(
      (g): Tally => ({
        requests: g.ports.map(() => 0),
        seconds: 0,
        roundRates: [],
        p50s: g.ports.map(() => []),
        p99s: g.ports.map(() => []),
        non2xx: g.ports.map(() => 0),
        errors: g.ports.map(() => 0),
        cpu: { servers: 0, generator: 0, redis: 0, postgres: 0, other: 0 },
      }),
    );
    progress(`${auth}: warm-up of each case`);
    for (const g of groups) await httpLoad(opts.tool, targetsOf(g), 1);
    for (let round = 1; round <= opts.rounds; round++) {
      progress(`${auth}: round ${round} of ${opts.rounds}`);
      for (const [i, g] of groups.entries()) {
        await waitForQuiet();
        const t = tallies[i]!;
        const servers0 = g.servers.reduce((a, s) => a + s.cpuSeconds(), 0);
        const redis0 = cpuOfNamed('redis-server');
        const postgres0 = cpuOfNamed('postgres');
        const machine0 = machineBusySeconds();
        const started = process.hrtime.bigint();
        const run = await httpLoad(opts.tool, targetsOf(g), opts.roundSeconds);
        const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
        const servers = g.servers.reduce((a, s) => a + s.cpuSeconds(), 0) - servers0;
        const redis = cpuUsedSince(redis0, cpuOfNamed('redis-server'));
        const postgres = cpuUsedSince(postgres0, cpuOfNamed('postgres'));
        const machine = machineBusySeconds() - machine0;
        t.seconds += elapsed;
        t.roundRates.push(run.results.reduce((a, r) => a + r.requestsPerSecond, 0));
        run.results.forEach((r, k) => {
          t.requests[k]! += r.requestsPerSecond * elapsed;
          t.p50s[k]!.push(r.p50Ms);
          t.p99s[k]!.push(r.p99Ms);
          t.non2xx[k]! += r.non2xx;
          t.errors[k]! += r.errors;
        });
        t.cpu.servers += servers;
        t.cpu.generator += run.generatorCpuSeconds;
        t.cpu.redis += redis;
        t.cpu.postgres += postgres;
        t.cpu.other += Math.max(0, machine - servers - run.generatorCpuSeconds - redis - postgres);
      }
    }
    for (const [i, g] of groups.entries()) {
      const t = tallies[i]!;
      const perTarget = g.ports.map((_p, k) => ({
        requestsPerSecond: t.requests[k]! / t.seconds,
        p50Ms: t.p50s[k]!.reduce((a, b) => a + b, 0) / t.p50s[k]!.length,
        p99Ms: Math.max(...t.p99s[k]!),
        non2xx: t.non2xx[k]!,
        errors: t.errors[k]!,
      }));
      cases.push({
        label: g.label,
        auth,
        requestsPerSecond: perTarget.reduce((a, r) => a + r.requestsPerSecond, 0),
        rounds: t.roundRates,
        perTarget,
        cpu: {
          servers: t.cpu.servers / t.seconds,
          generator: t.cpu.generator / t.seconds,
          redis: t.cpu.redis / t.seconds,
          postgres: t.cpu.postgres / t.seconds,
          other: t.cpu.other / t.seconds,
        },
        rssBytes: g.servers.flatMap((s) => s.pids().map(rssOf)),
      });
    }
  }
  return cases;
}

export function reportClusterStatus(cases: StatusCase[], tool: LoadTool, target: number): string[] {
  const rounds = cases[0]?.rounds.length ?? 0;
  const lines = [`  GET /api/status/<id> (${tool}, ${CONNECTIONS} keep-alive connections in all, rate limiter off; the cases take turns in ${rounds} rounds):`];
  for (const c of cases) {
    const lat = c.perTarget.map((t) => `p50 ${fmt(t.p50Ms, 2)} ms, p99 ${fmt(t.p99Ms, 2)} ms`).join(' | ');
    const bad = c.perTarget.reduce((a, t) => a + t.non2xx + t.errors, 0);
    lines.push(
      `    ${`${c.label}, ${c.auth}:`.padEnd(36)} ${fmt(c.requestsPerSecond)} requests/s` +
        (c.perTarget.length > 1 ? ` (${c.perTarget.map((t) => fmt(t.requestsPerSecond)).join(' + ')})` : '') +
        ` [rounds ${c.rounds.map((r) => fmt(r)).join(', ')}]; ${lat}${bad ? `; ${bad} non-2xx or errors` : ''}`,
      `      CPU, % of one core: servers ${fmt(c.cpu.servers * 100)} (${fmt((c.cpu.servers * 1e6) / c.requestsPerSecond, 1)} µs/request), ` +
        `generator ${fmt(c.cpu.generator * 100)}, Redis ${fmt(c.cpu.redis * 100)}, PostgreSQL ${fmt(c.cpu.postgres * 100)}, other ${fmt(c.cpu.other * 100)}; RSS ${c.rssBytes.map(mib).join(' + ')}`,
    );
  }
  for (const auth of ['cookie', 'token'] as const) {
    const of = (label: string): number => cases.find((c) => c.auth === auth && c.label === label)?.requestsPerSecond ?? NaN;
    const one = of(ONE_NODE);
    const workers = of(WORKERS) / one;
    lines.push(
      `    ${auth}: vs one node: one clustered node ×${fmt(of(CLUSTERED_ALONE) / one, 2)}, two nodes ×${fmt(of(TWO_NODES) / one, 2)}, ` +
        `--workers 2 ×${fmt(workers, 2)} (target ≥ ×${target}: ${workers >= target ? 'met' : 'missed'})`,
    );
  }
  return lines;
}
