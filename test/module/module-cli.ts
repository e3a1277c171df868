/**
 * `vts module` as a real child process for tests: its stdout and stderr lines (stderr holds the
 * pino log, one JSON object a line), its exit code, and waits for log lines.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { TestContext } from 'node:test';
import { createInterface } from 'node:readline';

const MAIN = new URL('../../src/cli/main.ts', import.meta.url).pathname;

/** A pino log line of the module process. */
export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export const WARN = 40;

export interface ModuleProcess {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exit: Promise<number | null>;
  /** The stderr lines that are JSON log lines. */
  logs(): LogLine[];
  /** Waits until at least `count` log lines match (default 1) and returns them. */
  waitLogs(what: string, match: (l: LogLine) => boolean, count?: number, timeoutMs?: number): Promise<LogLine[]>;
  /** The `{"event":"started",…}` line. */
  started(timeoutMs?: number): Promise<{ event: string; modules: { id: string; http: number | null; ssh: number | null }[] }>;
}

/** Starts `vts module <args>`; killed (SIGKILL) when the test ends if still running. */
export function vtsModule(args: string[], t?: TestContext): ModuleProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'module', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => stdout.push(l));
  createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t?.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const logs = (): LogLine[] =>
    stderr.flatMap((l) => {
      try {
        const v = JSON.parse(l) as unknown;
        return typeof v === 'object' && v !== null && 'msg' in v ? [v as LogLine] : [];
      } catch {
        return [];
      }
    });
  return {
    child,
    stdout,
    stderr,
    exit,
    logs,
    waitLogs: async (what, match, count = 1, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = logs().filter(match);
        if (found.length >= count) return found;
        if (child.exitCode !== null) assert.fail(`vts module exited (${child.exitCode}) while waiting for ${what}:\n${stderr.join('\n')}`);
        if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; stderr:\n${stderr.slice(-30).join('\n')}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    started: async (timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      while (stdout[0] === undefined) {
        if (child.exitCode !== null || Date.now() > deadline) {
          assert.fail(`no started line (exit ${child.exitCode}); stderr:\n${stderr.join('\n')}`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      return JSON.parse(stdout[0]) as Awaited<ReturnType<ModuleProcess['started']>>;
    },
  };
}

/** A TCP port nothing listens on right now (for a server that starts later on it). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const address = s.address();
  assert.ok(address && typeof address === 'object');
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return address.port;
}
