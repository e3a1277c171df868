/**
 * A tracker's commit, a checkpoint alone (a parked car caught up after a restart, thousands at once
 * in a reconnect storm) or with session changes (a parked fleet's charges, every second), commits
 * with synchronous=NORMAL on SQLite: it does not wait for the disk (both are derived from the
 * history), and the connection is back at FULL afterwards.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import { freshStore, seed, SQLITE_ONLY } from './helpers.js';
import { drive } from './drives-helpers.js';

test('commitTracker: a checkpoint, alone or with session changes, without waiting for the disk', { skip: SQLITE_ONLY }, async (t) => {
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
  assert.deepEqual(pragmas, ['PRAGMA synchronous = NORMAL', 'PRAGMA synchronous = FULL'], 'with session changes');
  assert.equal(db.pragma('synchronous', { simple: true }), 2, 'FULL again afterwards');
  pragmas.length = 0;
  assert.equal(await store.drives.commitTracker('DEMO1', 1, '{"n":2}', []), 2);
  assert.deepEqual(pragmas, ['PRAGMA synchronous = NORMAL', 'PRAGMA synchronous = FULL'], 'a checkpoint alone');
  assert.equal(db.pragma('synchronous', { simple: true }), 2, 'FULL again afterwards');
  assert.deepEqual(await store.drives.loadTracker('DEMO1'), { seq: 2, state: '{"n":2}' });
  // a refused checkpoint (another writer moved on) restores FULL too
  assert.equal(await store.drives.commitTracker('DEMO1', 1, '{"n":3}', []), null);
  assert.equal(db.pragma('synchronous', { simple: true }), 2);
});
