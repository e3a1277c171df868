/**
 * Remote command round trip through the server: HTTP `POST /api/command/<id>` → the
 * command service → MP `C7` → an emulated module (`vts module`'s EmulatedModule, in this process)
 * → `c7` → HTTP answer. Measured with 1 vehicle (one caller, commands back to back) and with N
 * vehicles (one caller per vehicle, all at once). Reports p50/p99 latency and commands/s.
 */
import { Writable } from 'node:stream';
import { createLogger } from '../src/util/log.js';
import { EmulatedModule } from '../src/module/module.js';
import type { ServerProcess } from './lib/server-process.js';
import { fmt, percentile } from './lib/stats.js';
import { cookieLogin } from './lib/payloads.js';

export interface RoundTripResult {
  vehicles: number;
  commands: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
}

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

export async function runCommandRoundTrip(
  server: ServerProcess,
  opts: { ids: string[]; carPassword: string; user: string; password: string; seconds: number; counts: number[] },
): Promise<RoundTripResult[]> {
  const max = Math.max(...opts.counts);
  const modules = opts.ids.slice(0, max).map(
    (id, k) =>
      new EmulatedModule({ id, seed: k + 1, carPassword: opts.carPassword, adminPassword: '', server: { host: '127.0.0.1', port: server.mpPort }, log: quiet }),
  );
  try {
    await Promise.all(modules.map((m) => m.start()));
    const deadline = Date.now() + 30_000;
    while (!modules.every((m) => m.v2?.connected)) {
      if (Date.now() > deadline) throw new Error('the emulated modules did not all connect');
      await new Promise((r) => setTimeout(r, 100));
    }
    const base = `http://127.0.0.1:${server.httpPort}`;
    const cookie = await cookieLogin(server.httpPort, opts.user, opts.password);
    const results: RoundTripResult[] = [];
    for (const count of opts.counts) {
      const latencies: number[] = [];
      let failures = 0;
      const end = Date.now() + opts.seconds * 1000;
      const caller = async (id: string): Promise<void> => {
        while (Date.now() < end) {
          const t0 = performance.now();
          const r = await fetch(`${base}/api/command/${id}`, {
            method: 'POST',
            headers: { cookie, 'content-type': 'application/json' },
            body: JSON.stringify({ command: 'echo bench', timeout: 10 }),
          });
          const body = (await r.json()) as { output?: string };
          if (r.status === 200 && body.output === 'bench\n') latencies.push(performance.now() - t0);
          else failures++;
        }
      };
      const started = Date.now();
      await Promise.all(opts.ids.slice(0, count).map(caller));
      latencies.sort((a, b) => a - b);
      results.push({
        vehicles: count,
        commands: latencies.length,
        perSecond: latencies.length / ((Date.now() - started) / 1000),
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        failures,
      });
    }
    return results;
  } finally {
    await Promise.all(modules.map((m) => m.stop()));
  }
}

export function reportCommandRoundTrip(results: RoundTripResult[]): string {
  const lines = ['Command round trip (HTTP → server → MP → emulated module → back, `echo bench`):'];
  for (const r of results) {
    lines.push(
      `  ${String(r.vehicles).padStart(3)} vehicle(s): ${fmt(r.commands)} commands, ${fmt(r.perSecond)}/s, ` +
        `latency p50 ${fmt(r.p50Ms, 1)} ms, p99 ${fmt(r.p99Ms, 1)} ms` +
        (r.failures ? `, ${r.failures} failed` : ''),
    );
  }
  return lines.join('\n');
}
