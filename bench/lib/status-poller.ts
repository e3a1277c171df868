/**
 * An app polling `GET /api/status/<id>` with a session cookie, one request at a time at a steady
 * pace, on one keep-alive connection: the latency an app sees. Survives a server restart: a
 * failed request or a 401 (the new server does not know the session) logs in again.
 *
 * Given several servers, it asks each in turn within every tick (the order turning round from one
 * tick to the next): the servers are then compared under the same machine at the same moments,
 * which separate windows cannot give on a shared 2-core machine.
 */
import { fork } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cookieLogin } from './payloads.js';

export interface PollResult {
  /** Latencies of the 200 answers, ms, sorted. */
  samples: number[];
  non200: number;
  errors: number;
}

/**
 * VTS_BENCH_SLOW_LOG=<file>: each answer slower than VTS_BENCH_SLOW_MS (default 2) is appended
 * there as `port sent-at-µs ms`, the time on CLOCK_MONOTONIC as a server's `--cpu-prof` profile
 * counts it, to find what the server was doing meanwhile.
 */
const SLOW_LOG = process.env.VTS_BENCH_SLOW_LOG;
const SLOW_MS = Number(process.env.VTS_BENCH_SLOW_MS ?? 2);

function get(agent: Agent, port: number, path: string, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent, headers: { cookie } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.once('error', reject);
    req.end();
  });
}

/** One server's side of the poll: its connection, its session and what it answered. */
class Target {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  readonly result: PollResult = { samples: [], non200: 0, errors: 0 };
  cookie: string | null = null;
  /** The answers slower than SLOW_MS: when each was sent (CLOCK_MONOTONIC µs, as in a V8 CPU profile) and how long it took. */
  readonly slow: [bigint, number][] = [];
  constructor(readonly port: number) {}

  /** One request; false when it failed (the next one logs in again). */
  async ask(account: { user: string; password: string }, path: string): Promise<boolean> {
    try {
      this.cookie ??= await cookieLogin(this.port, account.user, account.password);
      const sentAt = SLOW_LOG ? process.hrtime.bigint() : 0n;
      const sent = performance.now();
      const status = await get(this.agent, this.port, path, this.cookie);
      const ms = performance.now() - sent;
      if (SLOW_LOG && ms > SLOW_MS) this.slow.push([sentAt / 1000n, ms]);
      if (status === 200) this.result.samples.push(ms);
      else {
        this.result.non200++;
        if (status === 401) this.cookie = null;
      }
      return true;
    } catch {
      this.result.errors++;
      this.cookie = null;
      return false;
    }
  }
}

/**
 * Polls every `intervalMs` (or right after a slower answer) until `done()` says so; with several
 * ports, each is asked once per tick, one after the other. `account`: the app's user on every
 * server; `vehicleId`: the vehicle it watches. The results come in the order of `ports`.
 */
export async function pollStatus(
  ports: readonly number[],
  account: { user: string; password: string },
  vehicleId: string,
  done: () => boolean,
  intervalMs = 10,
): Promise<PollResult[]> {
  const targets = ports.map((p) => new Target(p));
  const path = `/api/status/${vehicleId}`;
  try {
    for (let tick = 0; !done(); tick++) {
      const started = performance.now();
      let failed = false;
      for (let k = 0; k < targets.length; k++) {
        const t = targets[(tick + k) % targets.length]!;
        if (!(await t.ask(account, path))) failed = true;
      }
      const left = intervalMs - (performance.now() - started);
      await new Promise((r) => setTimeout(r, Math.max(left, failed ? intervalMs : 0)));
    }
  } finally {
    for (const t of targets) t.agent.destroy();
    if (SLOW_LOG) appendFileSync(SLOW_LOG, targets.flatMap((t) => t.slow.map(([at, ms]) => `${t.port} ${at} ${ms.toFixed(2)}\n`)).join(''));
  }
  return targets.map((t) => ({ ...t.result, samples: t.result.samples.sort((a, b) => a - b) }));
}

/** `done` for `pollStatus`: true after `seconds`. */
export function forSeconds(seconds: number): () => boolean {
  const end = performance.now() + seconds * 1000;
  return () => performance.now() >= end;
}

/**
 * `pollStatus` in a child process of its own (bench/lib/status-poller-child.ts): for `seconds`, or
 * until `stop()` when `seconds` is 0. The results (one per port, in order) come back when it has
 * finished.
 */
export function pollApart(
  ports: number | readonly number[],
  account: { user: string; password: string },
  vehicleId: string,
  seconds = 0,
): { stop(): void; result: Promise<PollResult[]> } {
  const list = typeof ports === 'number' ? [ports] : ports;
  const child = fork(new URL('./status-poller-child.ts', import.meta.url), [list.join(','), account.user, account.password, vehicleId, String(seconds)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const result = new Promise<PollResult[]>((resolve, reject) => {
    child.once('message', (m) => resolve(m as PollResult[]));
    child.once('exit', (code) => reject(new Error(`the app's poller exited (${code}) without a result`)));
    child.once('error', reject);
  });
  return { stop: () => void child.send('stop'), result };
}
