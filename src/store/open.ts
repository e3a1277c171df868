/**
 * The one entry point that opens a store: the SQLite database of a data directory,
 * `<dataDir>/vts.sqlite`, or the PostgreSQL database of a `--database postgres://…` URL
 * (src/store/postgres/). What can go wrong on the way (the folder is a file, no permission, a
 * read-only file system, a file that is not a database; a database server that cannot be reached
 * or refuses the login) becomes one VtsError that names the place and says what to do; the
 * system error is its cause.
 */
import { accessSync, chmodSync, closeSync, constants, openSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { VtsError, isVtsError } from '../errors.js';
import { makeFolder } from '../util/make-folder.js';
import type { Store, StoreOptions } from './store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import { openPgStore } from './postgres/pg-open.js';
import { describePgError, pgTarget } from './postgres/pg-errors.js';

export const SQLITE_FILE_NAME = 'vts.sqlite';

export interface OpenStoreOptions extends StoreOptions {
  /**
   * A `postgres://` or `postgresql://` URL: the PostgreSQL database there instead of the SQLite
   * file of the data dir (unset or empty: SQLite).
   */
  database?: string;
  /**
   * Whether a missing data directory and database are created (the default). false: they must
   * exist (commands that read, or change what is there), else VTS_ERR_NO_DATABASE.
   */
  create?: boolean;
  /** Told, once, that a new database was created (the file's path as the data dir was given, or the database URL without password). */
  onCreated?: (file: string) => void;
}

const errnoCode = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

/** The database file as the user gave the data dir (`./data` → `./data/vts.sqlite`), for messages. */
export function databaseFile(dataDir: string): string {
  return `${dataDir.replace(/\/+$/, '')}/${SQLITE_FILE_NAME}`;
}

const CREATE_HINT = "check --data-dir, or create one with 'vts user add NAME --password -' or 'vts serve'";

/** The PostgreSQL URL of `--database`, undefined for SQLite; anything else is VTS_ERR_CONFIG (without echoing it: it may hold a password). */
function databaseUrl(database: string | undefined): string | undefined {
  if (database === undefined || database === '') return undefined;
  if (/^postgres(ql)?:\/\//i.test(database)) return database;
  throw new VtsError(
    'VTS_ERR_CONFIG',
    '--database takes a PostgreSQL URL, postgres://user:password@host:port/database (or postgresql://); leave it out for the SQLite database in --data-dir',
  );
}

/**
 * Refuses a database that does not exist, before a command that needs one asks for anything (a
 * password) or opens it: a data dir or its database file (SQLite), or a PostgreSQL schema without
 * vts's tables.
 */
export async function requireStore(dataDir: string, database: string | undefined): Promise<void> {
  const url = databaseUrl(database);
  if (url === undefined) return requireDatabase(dataDir);
  await (await openPgStore(url, { create: false })).close();
}

/** `requireStore` for the SQLite database of a data dir. */
export function requireDatabase(dataDir: string): void {
  const file = databaseFile(dataDir);
  const dir = kind(dataDir);
  if (dir === 'missing') {
    throw new VtsError('VTS_ERR_NO_DATABASE', `no vts database at ${file} (the folder ${dataDir} does not exist): ${CREATE_HINT}`, { whole: true });
  }
  if (dir === 'file') throw notAFolder(dataDir);
  if (kind(join(dataDir, SQLITE_FILE_NAME)) === 'missing') {
    throw new VtsError('VTS_ERR_NO_DATABASE', `no vts database at ${file}: ${CREATE_HINT}`, { whole: true });
  }
}

/**
 * Opens (creating the data dir with mode 0700 and the database with mode 0600 unless
 * `create: false`, migrating) the SQLite database of `dataDir`. SQLite creates its -wal and -shm
 * files with the database file's mode.
 */
export async function openStore(dataDir: string, opts: OpenStoreOptions = {}): Promise<Store> {
  const url = databaseUrl(opts.database);
  if (url !== undefined) return openPgStore(url, opts);
  const file = join(dataDir, SQLITE_FILE_NAME);
  let created = false;
  if (opts.create === false) {
    requireDatabase(dataDir);
  } else {
    try {
      makeDataDir(dataDir);
      created = createFile(file);
    } catch (err) {
      throw dataDirError(err, dataDir);
    }
  }
  let store: Store;
  try {
    store = new SqliteStore(file, opts);
  } catch (err) {
    if (created) {
      try {
        unlinkSync(file); // the empty file this call made: nothing half-made stays behind
      } catch {
        // it stays; the error below says what is wrong
      }
    }
    throw describeStoreError(err, dataDir);
  }
  if (created) opts.onCreated?.(databaseFile(dataDir));
  return store;
}

/** Creates the database file (mode 0600 whatever the umask); false when it exists already. */
function createFile(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (err) {
    if (errnoCode(err) === 'EEXIST') return false;
    throw err;
  }
  closeSync(fd);
  chmodSync(file, 0o600);
  return true;
}

/** The data dir, made with mode 0700 when missing (src/util/make-folder.ts); it must be a folder. */
function makeDataDir(dir: string): void {
  makeFolder(dir, 0o700);
  const k = kind(dir);
  if (k === 'missing') {
    throw new VtsError('VTS_ERR_DATA_DIR', `${dir} is a link to a folder that does not exist: point --data-dir at a folder`, { whole: true });
  }
  if (k === 'file') throw Object.assign(new Error(`not a folder: ${dir}`), { code: 'ENOTDIR', path: dir });
}

type Kind = 'missing' | 'file' | 'folder';

function kind(path: string): Kind {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'file';
  } catch (err) {
    if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') return 'missing';
    throw describeFsError(err, path, path);
  }
}

/** The nearest folder of `path` (itself included) that exists: where a missing one would be made. */
function nearestExisting(path: string): string {
  let p = resolve(path);
  while (kind(p) === 'missing' && dirname(p) !== p) p = dirname(p);
  return p === resolve(path) ? path : p;
}

function notAFolder(dataDir: string): VtsError {
  return new VtsError('VTS_ERR_DATA_DIR', `the data directory ${dataDir} is a file, not a folder: point --data-dir at a folder`, { whole: true });
}

/** A file-system error met while creating the data dir or the database file. */
function dataDirError(err: unknown, dataDir: string): VtsError {
  if (isVtsError(err)) return err;
  const code = errnoCode(err);
  if (code === 'ENOTDIR') {
    if (kind(dataDir) === 'file') return notAFolder(dataDir);
    return new VtsError('VTS_ERR_DATA_DIR', `cannot create the data directory ${dataDir}: a part of the path is a file, not a folder: point --data-dir at a folder`, { whole: true, cause: err });
  }
  if (code === 'ENOENT' && kind(dataDir) === 'folder') {
    const file = databaseFile(dataDir);
    return new VtsError('VTS_ERR_DATA_DIR', `cannot create ${file}: ${dataDir} takes no new files (ENOENT): point --data-dir at another folder`, { whole: true, cause: err });
  }
  if (code === 'ENOENT') {
    const parent = nearestExisting(dataDir);
    return new VtsError('VTS_ERR_DATA_DIR', `cannot create the data directory ${dataDir}: ${parent} takes no new folders (ENOENT): point --data-dir at another folder`, { whole: true, cause: err });
  }
  return describeFsError(err, kind(dataDir) === 'missing' ? nearestExisting(dataDir) : dataDir, dataDir);
}

/** Permission, read-only file system, full disk…: `folder` is where vts needs to write. */
function describeFsError(err: unknown, folder: string, dataDir: string): VtsError {
  const code = errnoCode(err);
  const other = 'point --data-dir at another folder';
  const say = (text: string): VtsError => new VtsError('VTS_ERR_DATA_DIR', text, { whole: true, cause: err });
  if (code === 'EACCES' || code === 'EPERM') {
    return say(`no permission to write to ${folder} (${code}): give the user running vts write access to it, or ${other}`);
  }
  if (code === 'EROFS') return say(`${folder} is on a read-only file system: ${other} on a writable one`);
  if (code === 'ENOSPC' || code === 'EDQUOT') return say(`no space left for ${folder} (${code}): free some space, or ${other}`);
  const message = err instanceof Error ? err.message : String(err);
  return say(`cannot use the data directory ${dataDir}: ${message}: ${other}`);
}

/** SQLite's result code (`SQLITE_NOTADB`, `SQLITE_READONLY_DIRECTORY`, …) of a better-sqlite3 error. */
function sqliteCode(err: unknown): string | undefined {
  const code = errnoCode(err);
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/**
 * One line for an error of the database (SQLite or the file system on `dataDir`, or PostgreSQL at
 * `database`): opening it, or a command's reads and writes. VtsErrors and errors of other kinds
 * are returned as they are.
 */
export function describeStoreError(err: unknown, dataDir: string, database?: string): unknown {
  if (isVtsError(err)) return err;
  const url = databaseUrl(database);
  if (url !== undefined) return describePgError(err, pgTarget(url));
  const code = sqliteCode(err);
  if (!code) return errnoCode(err) ? describeFsError(err, dataDir, dataDir) : err;
  const file = databaseFile(dataDir);
  const sqlite = `SQLite: ${(err as Error).message}`;
  const say = (text: string): VtsError => new VtsError('VTS_ERR_DATABASE', text, { whole: true, cause: err });
  const away = 'point --data-dir at another folder or move the file away';
  if (code === 'SQLITE_NOTADB') return say(`${file} is not a vts database (${sqlite}): ${away}`);
  if (code.startsWith('SQLITE_CORRUPT')) return say(`${file} is damaged (${sqlite}): restore it from a backup, or ${away}`);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return say(`${file} is locked by another program (${sqlite}): try again when it is done`);
  }
  if (code === 'SQLITE_FULL') return say(`no space left for ${file} (${sqlite}): free some space`);
  // other than SQLITE_CANTOPEN, SQLITE_READONLY*, SQLITE_PERM, SQLITE_IOERR*: not about the file (a bug)
  if (!/^SQLITE_(CANTOPEN|READONLY|PERM|IOERR)/.test(code)) return err;
  if (kind(join(dataDir, SQLITE_FILE_NAME)) === 'folder') return say(`${file} is a folder, not a database file: ${away}`);
  // the system says why: a read-only file system, no permission
  const why = accessProblem(dataDir, dataDir) ?? accessProblem(join(dataDir, SQLITE_FILE_NAME), file);
  if (why) return describeFsError(why.err, why.shown, dataDir);
  return say(`cannot open ${file} (${sqlite}): check that the user running vts may read and write it and its folder`);
}

/** The error of a read-write access check of `path` (EROFS, EACCES…), or null when it may be written. */
function accessProblem(path: string, shown: string): { err: unknown; shown: string } | null {
  try {
    accessSync(path, constants.R_OK | constants.W_OK);
    return null;
  } catch (err) {
    return errnoCode(err) === 'ENOENT' ? null : { err, shown };
  }
}
