/**
 * `vts backup`: a consistent copy of the SQLite database while the server runs, through SQLite's
 * online backup API (better-sqlite3's `backup`). The copy is written to a temporary file next to
 * the target and renamed into place once it is complete and checked, so a backup that fails
 * leaves nothing half-written under the target's name.
 *
 * A write by another connection (the running server) while the backup copies makes SQLite start
 * the copy again; so every page is copied in one step (better-sqlite3's first step copies none and
 * asks how many to copy next), inside one read transaction, which in WAL mode does not hold the
 * server's writes up: the copy always completes and is the database as it was at one moment.
 * Every file it makes is readable by its owner only from the start (the database holds password
 * hashes and car passwords).
 */
import { chmodSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { VtsError } from '../../errors.js';
import { SCHEMA_VERSION } from './migrations.js';

export interface BackupResult {
  /** Bytes of the copy. */
  bytes: number;
  pages: number;
  schemaVersion: number;
  owners: number;
  vehicles: number;
}

export async function backupSqlite(source: string, target: string, onProgress?: (copied: number, total: number) => void): Promise<BackupResult> {
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
  const umask = process.umask(0o077);
  let pages = 0;
  try {
    const db = new Database(source, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      await db.backup(temp, {
        progress: ({ totalPages, remainingPages }) => {
          pages = totalPages;
          onProgress?.(totalPages - remainingPages, totalPages);
          return Math.max(1, remainingPages);
        },
      });
    } finally {
      db.close();
    }
  } catch (err) {
    process.umask(umask);
    try {
      unlinkSync(temp);
    } catch {
      // never made
    }
    throw new VtsError('VTS_ERR_DATABASE', `the backup failed: ${(err as Error).message}`, { cause: err });
  }
  process.umask(umask);
  let result: BackupResult;
  try {
    result = check(temp, pages);
  } catch (err) {
    unlinkSync(temp);
    throw err;
  }
  // it holds password hashes and car passwords, as the database does (mode 0600)
  chmodSync(temp, 0o600);
  renameSync(temp, target);
  return result;
}

/** Opens the copy and checks it: SQLite's quick check, vts's schema, what it holds. */
function check(file: string, pages: number): BackupResult {
  const copy = new Database(file, { fileMustExist: true });
  try {
    const verdict = copy.pragma('quick_check', { simple: true }) as string;
    if (verdict !== 'ok') throw new VtsError('VTS_ERR_DATABASE', `the copy failed SQLite's check (${verdict}): the backup was not written`);
    const schemaVersion = copy.pragma('user_version', { simple: true }) as number;
    if (schemaVersion < 1 || schemaVersion > SCHEMA_VERSION) {
      throw new VtsError('VTS_ERR_DATABASE', `the copy has schema version ${schemaVersion}, not a vts database this vts knows (1-${SCHEMA_VERSION})`);
    }
    const count = (table: string): number => copy.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck().get() ?? 0;
    // the copy of a WAL database is in WAL mode too: as a file on its own it is better in one piece
    copy.pragma('journal_mode = DELETE');
    return { bytes: statSync(file).size, pages, schemaVersion, owners: count('owners'), vehicles: count('vehicles') };
  } finally {
    copy.close();
  }
}
