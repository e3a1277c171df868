/**
 * A tracker's checkpoint without session changes (a parked car caught up after a restart, thousands
 * at once in a reconnect storm) commits with synchronous=NORMAL on SQLite: it does not wait for the
 * disk, and the connection is back at FULL afterwards; a commit with session changes stays FULL.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import { freshStore, seed, SQLITE_ONLY } from './helpers.js';
import { drive } from './drives-helpers.js';

test('commitTracker: a checkpoint alone without waiting for the disk, session changes with', { skip: SQLITE_ONLY }, async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  const db = (store as unknown as { db: Database.Database }).db;
  const pragmas: string[] = [];
  const exec = db.exec.bind(db);
  db.exec = (sql: string) => {
    pragmas.push(sql);
    return exec(sql);
  };
  assert.equal(await store.drives.commitTracker('DEMO1', 0, '{"n":1}', [{ op: 'put', session: drive('a', 100, null) }]), 1);
  assert.deepEqual(pragmas, [], 'a commit with session changes: synchronous=FULL as always');
  assert.equal(await store.drives.commitTracker('DEMO1', 1, '{"n":2}', []), 2);
  assert.deepEqual(pragmas, ['PRAGMA synchronous = NORMAL', 'PRAGMA synchronous = FULL']);
  assert.equal(db.pragma('synchronous', { simple: true }), 2, 'FULL again afterwards');
  assert.deepEqual(await store.drives.loadTracker('DEMO1'), { seq: 2, state: '{"n":2}' });
  // a refused checkpoint (another writer moved on) restores FULL too
  assert.equal(await store.drives.commitTracker('DEMO1', 1, '{"n":3}', []), null);
  assert.equal(db.pragma('synchronous', { simple: true }), 2);
});
