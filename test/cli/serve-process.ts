/**
 * `vts serve` as a real child process for the CLI tests: its stdout and stderr lines, its exit,
 * the listening line; children a failed assertion left running are killed when the file ends.
 */
import { after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { MAIN } from './spawn-helpers.js';

export interface Running {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exit: Promise<number | null>;
}

/** Every listener on a free port. */
export const FREE_PORTS = ['--mp-port', '0', '--http-port', '0', '--https-port', '0', '--mp-tls-port', '0', '--mqtt-port', '0', '--mqtts-port', '0'];

const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/**
 * `vts serve --bind 127.0.0.1 <args>`, with the VTS_* variables of the developer's shell left out
 * and `env` added; `shell` runs it through `sh -c '<shell> && exec "$@"'` (e.g. a ulimit).
 */
export function serveProcess(args: string[], opts: { env?: Record<string, string>; shell?: string } = {}): Running {
  const words = [process.execPath, '--import', 'tsx', MAIN, 'serve', '--bind', '127.0.0.1', ...args];
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VTS_'))), ...opts.env };
  const child = opts.shell
    ? spawn('sh', ['-c', `${opts.shell} && exec "$@"`, 'sh', ...words], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(words[0]!, words.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => stdout.push(l));
  createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
  children.add(child);
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout, stderr, exit };
}

/**
 * The one listening line of stdout (fails when the child exits or prints none within 60 s: a guard
 * against a hang, not a bound of the start-up, which takes 15 s and more on a loaded 2-core machine).
 */
export async function listening(r: Running): Promise<Record<string, unknown>> {
  for (let k = 0; k < 1200 && r.stdout.length === 0; k++) {
    if (r.child.exitCode !== null) break;
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.equal(r.stdout.length, 1, `one line on stdout; stderr: ${r.stderr.join('\n')}`);
  return JSON.parse(r.stdout[0]!) as Record<string, unknown>;
}

/** The exit code; fails instead of hanging when the child never exits. */
export async function exitCode(r: Running): Promise<number | null> {
  let guard: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      r.exit,
      new Promise<never>((_r, reject) => (guard = setTimeout(() => reject(new Error(`vts serve did not exit: ${r.stderr.join('\n')}`)), 30_000))),
    ]);
  } finally {
    clearTimeout(guard);
  }
}
