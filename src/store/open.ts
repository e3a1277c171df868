/** Opens the store of a data directory: `<dataDir>/vts.sqlite`. */
import { chmodSync, closeSync, constants, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Store, StoreOptions } from './store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';

export const SQLITE_FILE_NAME = 'vts.sqlite';

/**
 * Creates `dataDir` if missing (mode 0700) and opens (creating with mode 0600, migrating) the
 * SQLite database in it. SQLite creates its -wal and -shm files with the database file's mode.
 */
export async function openStore(dataDir: string, opts: StoreOptions = {}): Promise<Store> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, SQLITE_FILE_NAME);
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (fd !== undefined) {
    closeSync(fd);
    chmodSync(file, 0o600); // whatever the umask
  }
  return new SqliteStore(file, opts);
}
