/**
 * HTTP load for the cluster benchmark: keep-alive GETs from wrk (a C program: far less CPU per
 * request than a Node generator, which matters when the generator shares 2 cores with the
 * servers) when it is installed, else autocannon in this process. Several targets run at once
 * (one wrk process per target), so that two nodes can be loaded together. Reports the generator's
 * own CPU time too.
 */
import { spawn, spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { cpuSecondsOf } from './proc.js';

export type LoadTool = 'wrk' | 'autocannon';

export interface LoadTarget {
  url: string;
  headers: Record<string, string>;
  connections: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

export interface LoadRun {
  /** One per target, in order. */
  results: LoadResult[];
  /** CPU seconds the generator used (all wrk processes, or this process for autocannon). */
  generatorCpuSeconds: number;
}

/** wrk when it is on the PATH (or when asked for), else autocannon. */
export function loadTool(wanted?: string): LoadTool {
  if (wanted === 'autocannon') return 'autocannon';
  const found = spawnSync('wrk', ['-v'], { stdio: 'ignore' }).error === undefined;
  if (wanted === 'wrk' && !found) throw new Error('wrk is not installed (apt-get install wrk), or use --http-load autocannon');
  return found ? 'wrk' : 'autocannon';
}

/** Runs every target at once for `seconds` (whole seconds for wrk). */
export function httpLoad(tool: LoadTool, targets: readonly LoadTarget[], seconds: number): Promise<LoadRun> {
  return tool === 'wrk' ? wrkLoad(targets, seconds) : autocannonLoad(targets, seconds);
}

async function autocannonLoad(targets: readonly LoadTarget[], seconds: number): Promise<LoadRun> {
  const cpu0 = process.cpuUsage();
  const results = await Promise.all(
    targets.map(
      (t) =>
        new Promise<LoadResult>((resolve, reject) => {
          autocannon({ url: t.url, headers: t.headers, connections: t.connections, pipelining: 1, duration: seconds }, (err, r) =>
            err
              ? reject(err)
              : resolve({ requestsPerSecond: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, non2xx: r.non2xx, errors: r.errors }),
          );
        }),
    ),
  );
  const cpu = process.cpuUsage(cpu0);
  return { results, generatorCpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

async function wrkLoad(targets: readonly LoadTarget[], seconds: number): Promise<LoadRun> {
  const runs = targets.map((t) => {
    const args = ['-t1', `-c${t.connections}`, `-d${Math.max(1, Math.round(seconds))}s`, '--latency'];
    for (const [k, v] of Object.entries(t.headers)) args.push('-H', `${k}: ${v}`);
    const child = spawn('wrk', [...args, t.url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    // the CPU time of a process can be read only while it runs: sample it until it ends
    let cpu = 0;
    const sample = setInterval(() => {
      const c = cpuSecondsOf(child.pid!);
      if (!Number.isNaN(c)) cpu = c;
    }, 100);
    const done = new Promise<{ result: LoadResult; cpu: number }>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => {
        clearInterval(sample);
        if (code !== 0) return reject(new Error(`wrk exited with ${code}: ${out}`));
        resolve({ result: parseWrk(out), cpu });
      });
    });
    return done;
  });
  const done = await Promise.all(runs);
  return { results: done.map((d) => d.result), generatorCpuSeconds: done.reduce((a, d) => a + d.cpu, 0) };
}

function wrkMs(value: string, unit: string): number {
  const n = Number(value);
  return unit === 'us' ? n / 1000 : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n;
}

/** Reads `wrk --latency`'s report. */
export function parseWrk(out: string): LoadResult {
  const percentileMs = (p: number): number => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out);
    return m ? wrkMs(m[1]!, m[2]!) : NaN;
  };
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(out);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    requestsPerSecond: rps ? Number(rps[1]) : NaN,
    p50Ms: percentileMs(50),
    p99Ms: percentileMs(99),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    errors: sock ? sock.slice(1).reduce((a, x) => a + Number(x), 0) : 0,
  };
}
