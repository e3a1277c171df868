/**
 * Shared by the CLI error tests: run the real `vts` as a child process, as an unprivileged user
 * when the tests run as root (where file modes and low ports stop nothing), and in a mount
 * namespace with a read-only folder.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

export const MAIN = new URL('../../src/cli/main.ts', import.meta.url).pathname;

export interface Exited {
  /** null when the child was killed (it hung: see `spawnVts`). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SpawnOptions {
  env?: Record<string, string>;
  /** Written to stdin, which is then closed; `open`: stdin stays open (a prompt would wait forever). */
  stdin?: string | 'open';
  uid?: number;
  gid?: number;
  /** Runs `vts` through this command line instead (e.g. `unshare … sh -c '…' sh`): its words come first. */
  wrapper?: string[];
}

/** VTS_* variables of the developer's shell must not change what the tests see. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VTS_')));
  return { ...base, ...extra };
}

/**
 * Runs `vts <args>` to its end. A child that hangs (the `--data-dir /proc/x` spin this guards
 * against) is killed after a minute and reported with code null, so the test fails instead of
 * stalling the run.
 */
export function spawnVts(args: string[], opts: SpawnOptions = {}): Promise<Exited> {
  const words = [process.execPath, '--import', 'tsx', MAIN, ...args];
  const [cmd, ...rest] = opts.wrapper ? [...opts.wrapper, ...words] : words;
  const child = spawn(cmd!, rest, {
    env: cleanEnv(opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
    timeout: 60_000,
    killSignal: 'SIGKILL',
    uid: opts.uid,
    gid: opts.gid,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  if (opts.stdin !== 'open') child.stdin.end(opts.stdin ?? '');
  return new Promise((resolve) =>
    child.once('close', (code) => {
      child.stdin.destroy();
      resolve({ code, stdout, stderr });
    }),
  );
}

/** Lines of a child's stderr that are not JSON log lines (the CLI's own messages). */
export function plainLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l !== '' && !l.startsWith('{'));
}

/** True when the text holds a stack trace (a frame line) or a logged error object with one. */
export function hasStack(text: string): boolean {
  return /^\s+at /m.test(text) || text.includes('"stack"');
}

export interface Unprivileged {
  uid?: number;
  gid?: number;
}

const NOBODY = 65534;

/**
 * How to run a child without privileges: as it is when the tests are not root, as `nobody` when
 * they are; a reason instead when neither works (root without a `nobody`).
 */
export function unprivileged(): Unprivileged | string {
  if (process.getuid?.() !== 0) return {};
  const probe = spawnSync(process.execPath, ['-e', 'process.exit(process.getuid() === 65534 ? 0 : 1)'], { uid: NOBODY, gid: NOBODY });
  return probe.status === 0 ? { uid: NOBODY, gid: NOBODY } : 'the tests run as root and cannot run a child as nobody (uid 65534)';
}

/** Makes every folder under `dir` writable again (a test made some read-only), so that it can be removed. */
function unlock(dir: string): void {
  chmodSync(dir, 0o700);
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) unlock(join(dir, e.name));
}

/**
 * A temp folder the unprivileged user may write in (owned by it when root), removed at the end
 * with everything in it, also folders a test made read-only.
 */
export function tempFolder(t: TestContext, who: Unprivileged = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'vts-cli-'));
  t.after(() => {
    unlock(dir);
    rmSync(dir, { recursive: true, force: true });
  });
  if (who.uid !== undefined) chownSync(dir, who.uid, who.gid ?? who.uid);
  return dir;
}

/** Gives `path` (made by the test as root) to the unprivileged user. */
export function giveTo(path: string, who: Unprivileged): void {
  if (who.uid !== undefined) chownSync(path, who.uid, who.gid ?? who.uid);
}

/**
 * The words that run a command with `folder` mounted read-only (a user and mount namespace:
 * `unshare -rm`), or a reason why that is not possible here.
 */
export function readOnlyWrapper(folder: string): string[] | string {
  const wrapper = ['unshare', '-rm', 'sh', '-c', 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"', folder];
  const probe = spawnSync(wrapper[0]!, [...wrapper.slice(1), 'true']);
  if (probe.error || probe.status !== 0) {
    return `no read-only mount here (unshare -rm with a bind mount failed: ${probe.error?.message ?? probe.stderr.toString().trim()})`;
  }
  return wrapper;
}

/** The lowest port an unprivileged program may listen on (Linux; 1024 elsewhere). */
export function unprivilegedPortStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8').trim());
  } catch {
    return 1024;
  }
}
