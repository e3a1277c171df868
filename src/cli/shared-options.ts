/**
 * What the admin commands (`vts user …`, `vts vehicle …`) share: the `--data-dir`, `--database`
 * and `--config` options, opening the store for the duration of one command, reading a password from stdin,
 * input validation at the edge and plain-text tables.
 */
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import { addConfigFileOption, addConfigOption } from '../util/config.js';
import { CAR_PASSWORD, MAX_VEHICLE_NAME, USER_NAME, VEHICLE_ID } from '../core/auth/identifier-rules.js';
import { passwordProblem } from '../core/auth/password-rule.js';
import { VtsError } from '../errors.js';
import { describeStoreError, openStore, requireStore } from '../store/open.js';
import type { Store } from '../store/store.js';

export interface StoreCommandOptions {
  dataDir: string;
  /** A PostgreSQL URL: that database instead of the SQLite file of the data dir. */
  database?: string;
  config?: string;
}

function parseDataDir(value: string): string {
  if (value.trim() === '') throw new VtsError('VTS_ERR_CONFIG', 'the data dir is empty');
  return value;
}

/**
 * Adds `--config`, `--data-dir` (env VTS_DATA_DIR, default ./data) and `--database` (env
 * VTS_DATABASE) to an admin command and to serve. `--database` is checked when the store opens,
 * not by the option parser, which would print the value (and its password) in its error.
 */
export function addStoreOptions(cmd: Command): Command {
  addConfigFileOption(cmd);
  addConfigOption(cmd, '--data-dir <dir>', 'folder of the SQLite database', { default: './data', parse: parseDataDir });
  addConfigOption(cmd, '--database <url>', 'PostgreSQL instead of SQLite: postgres://user:password@host:port/database');
  return cmd;
}

/**
 * Refuses a database that does not exist before a command asks for a password: a mistyped
 * --data-dir, or a PostgreSQL schema without vts's tables.
 */
export async function requireStoreOf(o: StoreCommandOptions): Promise<void> {
  try {
    await requireStore(o.dataDir, o.database);
  } catch (err) {
    throw describeStoreError(err, o.dataDir, o.database);
  }
}

/**
 * Opens the store (the SQLite file of the data dir, or the PostgreSQL database of --database),
 * runs `fn`, and closes the store again: an admin command
 * holds the database only as long as it needs it (the server may be using the same file).
 * The database must exist (a mistyped --data-dir is an error, not a new empty database) unless
 * `create` is set; then a new one is announced on stderr, once, when it is made. Errors of the
 * database (permission, read-only file system, not a database) become one-line VtsErrors.
 */
export async function withStore<T>(o: StoreCommandOptions, fn: (store: Store) => Promise<T>, opts: { create?: boolean } = {}): Promise<T> {
  const store = await openStore(o.dataDir, {
    database: o.database,
    create: opts.create === true,
    onCreated: (file) => process.stderr.write(`vts: created a new database at ${file}\n`),
  });
  let result: T;
  try {
    result = await fn(store);
  } catch (err) {
    await store.close().catch(() => undefined);
    throw describeStoreError(err, o.dataDir, o.database);
  }
  try {
    await store.close();
  } catch (err) {
    throw describeStoreError(err, o.dataDir, o.database);
  }
  return result;
}

// --- output ---

export function say(line: string): void {
  process.stdout.write(line + '\n');
}

/** Left-aligned columns separated by two spaces; the header row first. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [header, ...rows].map(line).join('\n') + '\n';
}

// --- validation at the edge ---

function invalid(detail: string): VtsError {
  return new VtsError('VTS_ERR_INVALID_INPUT', detail);
}


export function validateUserName(name: string): string {
  if (!USER_NAME.test(name)) {
    throw invalid(`user name must be 1-60 characters of A-Z a-z 0-9 . _ @ -: ${JSON.stringify(name)}`);
  }
  return name;
}

/** Returns the id upper-cased. */
export function validateVehicleId(id: string): string {
  if (!VEHICLE_ID.test(id)) {
    throw invalid(`vehicle id must be 1-32 characters of A-Z a-z 0-9 . _ -: ${JSON.stringify(id)}`);
  }
  return id.toUpperCase();
}

/** The rule for account passwords (src/core/auth/password-rule.ts); never echoes the password. */
export function validateUserPassword(password: string): string {
  const problem = passwordProblem(password);
  if (problem) throw invalid(problem);
  return password;
}

/** The MP shared secret: 1-255 characters without whitespace (commas are fine). */
export function validateCarPassword(password: string): string {
  if (password.length === 0) throw invalid('the password is empty');
  if (!CAR_PASSWORD.test(password)) throw invalid('a car password must be 1-255 characters without whitespace');
  return password;
}

export function validateVehicleName(name: string): string {
  if (name.length > MAX_VEHICLE_NAME) throw invalid(`the vehicle name is longer than ${MAX_VEHICLE_NAME} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw invalid('the vehicle name contains control characters');
  return name;
}

// --- passwords from stdin ---

const MAX_LINE = 64 * 1024;

/** The first line of a stream (without its line break), or everything up to the end. */
export function readFirstLine(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const cleanup = (): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.pause();
    };
    const done = (line: string): void => {
      cleanup();
      resolve(line.replace(/\r$/, ''));
    };
    const onData = (chunk: string | Buffer): void => {
      buf += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl >= 0) done(buf.slice(0, nl));
      else if (buf.length > MAX_LINE) {
        cleanup();
        reject(invalid('the first line of stdin is too long'));
      }
    };
    const onEnd = (): void => done(buf);
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.resume();
  });
}

/** Asks for a password on the terminal without echoing it. */
function promptHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  return new Promise((resolve, reject) => {
    let value = '';
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    const finish = (err?: Error): void => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string): void => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') return finish(invalid('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}

/**
 * The password given by an option: the value itself, or, for `-` or no value, the first line of
 * stdin (a hidden prompt when stdin is a terminal).
 */
export async function passwordFromOption(value: string | undefined, what = 'password'): Promise<string> {
  if (value !== undefined && value !== '-') return value;
  if (process.stdin.isTTY) return promptHidden(`${what}: `);
  return readFirstLine(process.stdin);
}
