/** Shared by the admin CLI tests: run `vts …` in-process with captured output, and temp data dirs. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { TestContext } from 'node:test';
import { run } from '../../src/cli/program.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

type Write = typeof process.stdout.write;

/**
 * Captures the string writes (what the CLI and commander write) and passes binary ones through:
 * the test runner reports through the same process.stdout in serialised (binary) form, and its
 * reports must not be swallowed while a command runs.
 */
function capture(original: Write, stream: NodeJS.WriteStream, chunks: string[]): Write {
  return ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    if (typeof chunk !== 'string') return (original as (...a: unknown[]) => boolean).call(stream, chunk, ...rest);
    chunks.push(chunk);
    const cb = rest.find((a) => typeof a === 'function') as (() => void) | undefined;
    if (cb) process.nextTick(cb);
    return true;
  }) as Write;
}

/**
 * Runs `vts <args>` in this process; stdout and stderr are captured, and `stdin` (when given: its
 * text, or a stream) replaces process.stdin for the run.
 */
export async function vts(args: string[], stdin?: string | Readable): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const stdoutWrite = process.stdout.write;
  const stderrWrite = process.stderr.write;
  const stdinDescriptor = Object.getOwnPropertyDescriptor(process, 'stdin');
  if (stdin !== undefined) {
    const value = typeof stdin === 'string' ? Readable.from([stdin]) : stdin;
    Object.defineProperty(process, 'stdin', { value, configurable: true });
  }
  process.stdout.write = capture(stdoutWrite, process.stdout, out);
  process.stderr.write = capture(stderrWrite, process.stderr, err);
  // run() reports process.exitCode when set; the test runner sets it when a test fails
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  let code: number;
  try {
    code = await run(['node', 'vts', ...args]);
  } finally {
    process.exitCode = exitCode;
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
    if (stdin !== undefined && stdinDescriptor) Object.defineProperty(process, 'stdin', stdinDescriptor);
  }
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** A fresh data directory (not created: the CLI creates it), removed when the test ends. */
export function dataDir(t: TestContext): string {
  const parent = mkdtempSync(join(tmpdir(), 'vts-'));
  t.after(() => rmSync(parent, { recursive: true, force: true }));
  return join(parent, 'data');
}
