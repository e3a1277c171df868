/**
 * `vts backup <file>`: a consistent copy of the SQLite database, also while `vts serve` runs
 * (src/store/sqlite/sqlite-backup.ts). Restoring is copying it back with the server stopped
 * (docs/operations.md "Backup and restore").
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { resolveOptions } from '../util/config.js';
import { count } from '../core/count.js';
import { VtsError } from '../errors.js';
import { databaseFile, requireDatabase } from '../store/open.js';
import { backupSqlite } from '../store/sqlite/sqlite-backup.js';
import { addStoreOptions, say, type StoreCommandOptions } from './shared-options.js';

interface BackupOptions extends StoreCommandOptions {
  force?: boolean;
}

/** From this many pages (about 40 MiB) the copy says that it is under way. */
const LARGE_PAGES = 10_000;

const mib = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MiB`;

export function registerBackup(program: Command): void {
  const cmd = program
    .command('backup')
    .description('write a consistent copy of the SQLite database to a file, also while the server runs')
    .argument('<file>', 'where the copy goes (a new file; --force replaces one)')
    .option('--force', 'replace the file when it exists');
  addStoreOptions(cmd).action(async (fileArg: string) => {
    const o = resolveOptions<BackupOptions>(cmd);
    if (o.database) {
      throw new VtsError('VTS_ERR_CONFIG', 'vts backup copies the SQLite database of --data-dir; back a PostgreSQL database up with pg_dump (docs/operations.md "Backup and restore")');
    }
    requireDatabase(o.dataDir);
    const source = databaseFile(o.dataDir);
    const target = resolve(fileArg);
    if (target === resolve(source)) throw new VtsError('VTS_ERR_INVALID_INPUT', `the backup cannot be the database itself: ${fileArg}`);
    if (existsSync(target)) {
      if (statSync(target).isDirectory()) throw new VtsError('VTS_ERR_INVALID_INPUT', `${fileArg} is a folder: give the name of the backup file`);
      if (!o.force) throw new VtsError('VTS_ERR_INVALID_INPUT', `${fileArg} exists: choose another name, or give --force to replace it`);
    }
    if (!existsSync(dirname(target))) throw new VtsError('VTS_ERR_INVALID_INPUT', `the folder ${dirname(fileArg)} does not exist: create it first, or give a file in a folder that exists`);
    let told = false;
    const r = await backupSqlite(source, target, (_copied, total) => {
      // a large database takes a while: say so once
      if (told || total < LARGE_PAGES) return;
      told = true;
      process.stderr.write(`vts: backup: copying ${total} pages of ${source}…\n`);
    });
    say(`backup of ${source} written to ${fileArg}: ${mib(r.bytes)}, schema version ${r.schemaVersion}, ${count(r.owners, 'user')}, ${count(r.vehicles, 'vehicle')} (checked)`);
  });
}
