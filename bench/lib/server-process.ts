/** Runs `vts serve` (the built dist/) as a child process and reads its memory use. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface ServerProcess {
  child: ChildProcess;
  mpPort: number;
  httpPort: number;
  /** Resident set size of the server process in bytes (from /proc). */
  rss(): number;
  stop(): Promise<number | null>;
}

export async function startServerProcess(dataDir: string, extraArgs: string[] = []): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [
      'dist/cli/main.js',
      'serve',
      '--data-dir',
      dataDir,
      '--bind',
      '127.0.0.1',
      '--mp-port',
      '0',
      '--http-port',
      '0',
      '--https-port',
      '0',
      '--mp-tls-port',
      '0',
      '--mqtt-port',
      'off',
      '--log-level',
      'warn',
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout! });
  const ports = await new Promise<{ mp: number; http: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not report its ports within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`server exited early (${code})`)));
    lines.on('line', (line) => {
      try {
        const ev = JSON.parse(line) as { event?: string; mp?: number; http?: number };
        if (ev.event === 'listening' && typeof ev.mp === 'number') {
          clearTimeout(timer);
          resolve({ mp: ev.mp, http: ev.http ?? 0 });
        }
      } catch {
        /* not our line */
      }
    });
  });
  return {
    child,
    mpPort: ports.mp,
    httpPort: ports.http,
    rss() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const m = /VmRSS:\s+(\d+) kB/.exec(status);
      return m ? Number(m[1]) * 1024 : NaN;
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      });
    },
  };
}
