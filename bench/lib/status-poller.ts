/**
 * An app polling `GET /api/status/<id>` with a session cookie, one request at a time at a steady
 * pace, on one keep-alive connection: the latency an app sees. Survives a server restart: a
 * failed request or a 401 (the new server does not know the session) logs in again.
 */
import { fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { cookieLogin } from './payloads.js';

export interface PollResult {
  /** Latencies of the 200 answers, ms, sorted. */
  samples: number[];
  non200: number;
  errors: number;
}

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

/**
 * Polls every `intervalMs` (or right after a slower answer) until `done()` says so.
 * `account`: the app's user; `vehicleId`: the vehicle it watches.
 */
export async function pollStatus(
  port: number,
  account: { user: string; password: string },
  vehicleId: string,
  done: () => boolean,
  intervalMs = 10,
): Promise<PollResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  let non200 = 0;
  let errors = 0;
  let cookie: string | null = null;
  const path = `/api/status/${vehicleId}`;
  try {
    while (!done()) {
      const started = performance.now();
      try {
        cookie ??= await cookieLogin(port, account.user, account.password);
        const sent = performance.now();
        const status = await get(agent, port, path, cookie);
        const ms = performance.now() - sent;
        if (status === 200) samples.push(ms);
        else {
          non200++;
          if (status === 401) cookie = null;
        }
      } catch {
        errors++;
        cookie = null;
      }
      const left = intervalMs - (performance.now() - started);
      await new Promise((r) => setTimeout(r, Math.max(left, errors > 0 && cookie === null ? intervalMs : 0)));
    }
  } finally {
    agent.destroy();
  }
  samples.sort((a, b) => a - b);
  return { samples, non200, errors };
}

/** `done` for `pollStatus`: true after `seconds`. */
export function forSeconds(seconds: number): () => boolean {
  const end = performance.now() + seconds * 1000;
  return () => performance.now() >= end;
}

/**
 * `pollStatus` in a child process of its own (bench/lib/status-poller-child.ts): for `seconds`, or
 * until `stop()` when `seconds` is 0. The result comes back when it has finished.
 */
export function pollApart(
  port: number,
  account: { user: string; password: string },
  vehicleId: string,
  seconds = 0,
): { stop(): void; result: Promise<PollResult> } {
  const child = fork(new URL('./status-poller-child.ts', import.meta.url), [String(port), account.user, account.password, vehicleId, String(seconds)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const result = new Promise<PollResult>((resolve, reject) => {
    child.once('message', (m) => resolve(m as PollResult));
    child.once('exit', (code) => reject(new Error(`the app's poller exited (${code}) without a result`)));
    child.once('error', reject);
  });
  return { stop: () => void child.send('stop'), result };
}
