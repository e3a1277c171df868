import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { isVtsError } from '../../src/errors.js';
import { openStore } from '../../src/store/open.js';
import { SCHEMA_VERSION } from '../../src/store/sqlite/migrations.js';
import { SQLITE_FILE, SQLITE_ONLY, tempDir } from './helpers.js';

test('a fresh file gets the whole schema, WAL mode and private permissions', { skip: SQLITE_ONLY }, async (t) => {
  const parent = tempDir(t);
  const dir = join(parent, 'nested', 'data');
  const store = await openStore(dir);
  await store.close();
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  assert.equal(statSync(join(dir, SQLITE_FILE)).mode & 0o777, 0o600);

  const db = new Database(join(dir, SQLITE_FILE), { readonly: true });
  t.after(() => db.close());
  assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  const names = (db.prepare("SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY name").all() as {
    name: string;
  }[]).map((r) => r.name);
  for (const n of [
    'abrp_links',
    'api_tokens',
    'autoprovision',
    'car_messages',
    'historical',
    'historical_all',
    'import_origins',
    'notify_targets',
    'owners',
    'places',
    'push_attempts',
    'push_buckets',
    'push_deliveries',
    'push_notifications',
    'push_subscriptions',
    'session_details',
    'session_trackers',
    'sessions',
    'utilisation',
    'vehicles',
  ]) {
    assert.ok(names.includes(n), `missing ${n}`);
  }
});

test('reopening keeps the data and does not migrate again', { skip: SQLITE_ONLY }, async (t) => {
  const dir = tempDir(t);
  const a = await openStore(dir);
  await a.addOwner('demo', 'h', '*');
  // a second store on the same file at the same time (server + CLI)
  const b = await openStore(dir);
  assert.equal((await b.getOwnerByName('DEMO'))?.name, 'demo');
  await b.close();
  await a.close();
  const c = await openStore(dir);
  t.after(() => c.close());
  assert.equal((await c.listOwners()).length, 1);
});

test('a database written by a newer vts is refused', { skip: SQLITE_ONLY }, async (t) => {
  const dir = tempDir(t);
  await (await openStore(dir)).close();
  const db = new Database(join(dir, SQLITE_FILE));
  db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  await assert.rejects(openStore(dir), (e) => isVtsError(e, 'VTS_ERR_STORE_SCHEMA'));
});
