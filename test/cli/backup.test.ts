/**
 * `vts backup <file>` (issue 17): a consistent copy of the SQLite database taken while a running
 * server writes to it, which opens as a vts database (and restores: a server on the copy serves its
 * users); an existing file is kept unless --force; PostgreSQL and a missing database are refused
 * with one line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SQLITE_ONLY } from '../support/postgres.js';
import { startTestServer } from '../support/server.js';
import { spawnVts } from './spawn-helpers.js';
import { verifyPassword } from '../../src/auth/password.js';

const ROWS_BEFORE = 20_000;

test('a backup taken under write load is consistent, checked, and restores', { skip: SQLITE_ONLY }, async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const out = mkdtempSync(join(tmpdir(), 'vts-backup-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const owner = await s.addUser('demo', 'demopassword');
  await s.addVehicle('DEMO1', owner, 'NETPASS');
  const store = s.server.store;
  const far = Math.floor(Date.now() / 1000) + 86400;
  const row = (n: number) => ({ vehicleId: 'DEMO1', type: '*-Bench', recordNumber: n, time: 1_700_000_000 + n, data: `row ${n} `.padEnd(200, 'x'), expires: far });
  for (let n = 0; n < ROWS_BEFORE; n++) void store.addHistorical(row(n));
  await store.flush();

  // the server keeps writing (and committing) while the backup runs in another process
  let written = ROWS_BEFORE;
  let writing = true;
  const load = (async () => {
    while (writing) {
      for (let k = 0; k < 200; k++) void store.addHistorical(row(written++));
      await store.flush();
      await new Promise((r) => setImmediate(r));
    }
  })();
  const file = join(out, 'vts-copy.sqlite');
  const r = await spawnVts(['backup', file, '--data-dir', s.dataDir]);
  writing = false;
  await load;
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^backup of .*vts\.sqlite written to .*vts-copy\.sqlite: [\d.]+ MiB, schema version \d+, 1 user, 1 vehicle \(checked\)\n$/);
  assert.ok(written > ROWS_BEFORE + 200, 'the server wrote during the backup');
  assert.equal(statSync(file).mode & 0o777, 0o600);

  const copy = new Database(file, { readonly: true });
  const rows = copy.prepare<[], number>("SELECT count(*) FROM historical WHERE type = '*-Bench'").pluck().get()!;
  const numbers = copy.prepare<[], { lo: number; hi: number }>("SELECT min(record_number) AS lo, max(record_number) AS hi FROM historical WHERE type = '*-Bench'").get()!;
  assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
  assert.equal(copy.pragma('journal_mode', { simple: true }), 'delete');
  copy.close();
  // a moment of the database: everything committed before the backup, no gap after it
  assert.ok(rows >= ROWS_BEFORE && rows <= written, `${rows} rows`);
  assert.deepEqual(numbers, { lo: 0, hi: rows - 1 });

  // restored: a server on the copy serves its users
  const restored = join(out, 'restored');
  mkdirSync(restored, { mode: 0o700 });
  copyFileSync(file, join(restored, 'vts.sqlite'));
  const again = await startTestServer({ dataDir: restored });
  try {
    const demo = await again.server.store.getOwnerByName('demo');
    assert.ok(demo && (await verifyPassword('demopassword', demo.passwordHash)));
    assert.equal((await again.server.store.getVehicle('DEMO1'))?.ownerId, demo.id);
  } finally {
    await again.close();
  }
});

test('an existing file is kept unless --force; PostgreSQL and a missing database are refused', { skip: SQLITE_ONLY }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-backup-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const data = join(dir, 'data');
  assert.equal((await spawnVts(['user', 'add', 'demo', '--password', 'demopassword', '--data-dir', data])).code, 0);
  const file = join(dir, 'copy.sqlite');
  writeFileSync(file, 'precious');
  const kept = await spawnVts(['backup', file, '--data-dir', data]);
  assert.equal(kept.code, 1);
  assert.equal(kept.stderr, `vts: invalid input: ${file} exists: choose another name, or give --force to replace it (VTS_ERR_INVALID_INPUT)\n`);
  const forced = await spawnVts(['backup', file, '--data-dir', data, '--force']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(forced.stdout, /1 user, 0 vehicles \(checked\)/);

  const pg = await spawnVts(['backup', join(dir, 'x.sqlite'), '--database', 'postgres://vts@127.0.0.1:5432/vts']);
  assert.equal(pg.code, 1);
  assert.match(pg.stderr, /^vts: .*pg_dump/);
  const none = await spawnVts(['backup', join(dir, 'y.sqlite'), '--data-dir', join(dir, 'nothing')]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /^vts: no vts database at /);
});
