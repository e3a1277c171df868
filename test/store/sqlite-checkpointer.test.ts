/**
 * WAL checkpoints in a worker thread (src/store/sqlite/sqlite-checkpointer.ts): with
 * `checkpointEveryMs` the store's own connection checkpoints only past FALLBACK_PAGES (its fallback
 * under writes without a pause), and what it commits reaches
 * the database file without the WAL shortly after (a copy of the file alone holds it); without
 * the option a few small commits stay in the WAL (SQLite checkpoints at 1,000 pages). Closing
 * stops the worker and still folds the WAL into the file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FALLBACK_PAGES } from '../../src/store/sqlite/sqlite-checkpointer.js';
import { eventually } from '../mp/helpers.js';
import { tempDir } from './helpers.js';

/**
 * The owners in a copy of the database file alone (what a checkpoint has put there), or undefined
 * when the copy was torn: a plain file copy made while the worker's checkpoint writes pages into
 * the file may hold some pages from before and some from after, which SQLite reads as malformed.
 */
function ownersInFileAlone(dir: string, file: string): number | undefined {
  const copy = join(dir, `alone-${Math.random().toString(36).slice(2)}.sqlite`);
  copyFileSync(file, copy);
  let db: Database.Database | undefined;
  try {
    db = new Database(copy, { readonly: true });
    // the tables themselves may still be in the WAL only
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'owners'").get()) return 0;
    return db.prepare<[], { n: number }>('SELECT count(*) AS n FROM owners').get()!.n;
  } catch (err) {
    // by prefix: SQLite may answer with an extended code (SQLITE_CORRUPT_INDEX, …)
    if (/^SQLITE_(CORRUPT|NOTADB)/.test(String((err as { code?: unknown }).code))) return undefined;
    throw err;
  } finally {
    db?.close();
  }
}

/** ownersInFileAlone from a copy that was not torn. */
const ownersInFile = (dir: string, file: string): Promise<number> =>
  eventually(() => ownersInFileAlone(dir, file), 'a copy of the database file that is not torn');

const autoPages = (store: SqliteStore): number => (store as unknown as { db: Database.Database }).db.pragma('wal_autocheckpoint', { simple: true }) as number;

test('with checkpointEveryMs the worker checkpoints, and the connection only as a fallback', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'vts.sqlite');
  const store = new SqliteStore(file, { checkpointEveryMs: 20 });
  let closed = false;
  // a failure before the close below still stops the worker and the store
  t.after(async () => {
    if (!closed) await store.close();
  });
  await eventually(() => (autoPages(store) === FALLBACK_PAGES ? true : undefined), 'the connection to leave checkpoints to the worker');
  const before = await ownersInFile(dir, file);
  for (let k = 0; k < 20; k++) await store.addOwner(`owner${k}`, 'x', '');
  await eventually(() => (ownersInFileAlone(dir, file) === before + 20 ? true : undefined), 'the 20 owners in the file without its WAL');
  closed = true;
  await store.close();
  assert.equal(existsSync(`${file}-wal`), false, 'the close folded the WAL into the file');
  const again = new SqliteStore(file);
  t.after(() => again.close());
  assert.equal((await again.getOwnerByName('owner19'))?.name, 'owner19');
});

test('without it, a few small commits stay in the WAL (the comparison that shows the worker did it)', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'vts.sqlite');
  const store = new SqliteStore(file);
  t.after(() => store.close());
  assert.equal(autoPages(store), 1000);
  const before = await ownersInFile(dir, file);
  for (let k = 0; k < 20; k++) await store.addOwner(`owner${k}`, 'x', '');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(await ownersInFile(dir, file), before);
});
