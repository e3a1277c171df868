/**
 * The lists of drives and charges read the bodies only of sessions not read before at their
 * revision (SessionMemo, src/store/drives-rows.ts), on SQLite or on PostgreSQL with
 * VTS_TEST_DATABASE: every kind of write shows in the next list, also a write by another store on
 * the same database (another node, `vts sessions rebuild`); unchanged sessions come back as the
 * same objects; two databases in one process never mix; on SQLite the first step reads the index only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { revisionsSql, SessionMemo, toStoredDrive, type RevisedRow, type SessionRow } from '../../src/store/drives-rows.js';
import { charge, drive } from './drives-helpers.js';
import { SQLITE_FILE, SQLITE_ONLY, freshPlace, freshStore, seed } from './helpers.js';

const ALL = [0, 1e12] as const;

test('every write shows in the next list, by this store or another on the same database; unchanged sessions are the same objects', async (t) => {
  const place = freshPlace(t);
  const a = await place.open();
  const b = await place.open();
  await seed(a);
  await a.drives.commitTracker('DEMO1', 0, 's', [
    { op: 'put', session: drive('x', 100, 200) },
    { op: 'put', session: drive('y', 300, null) },
    { op: 'put', session: charge('c', 400, null) },
  ]);
  const first = await a.drives.listDrives('DEMO1', ...ALL);
  assert.deepEqual(first.map((d) => [d.key, d.end]), [['x', 200], ['y', null]]);
  const again = await a.drives.listDrives('DEMO1', ...ALL);
  assert.ok(again[0] === first[0] && again[1] === first[1], 'the same objects while the rows are unchanged');
  assert.ok(Object.isFrozen(again[0]));

  // this store: an upsert of the same key (same id), a re-tagging
  await a.drives.commitTracker('DEMO1', 1, 's', [{ op: 'put', session: drive('y', 300, 360, { distance: 5 }) }]);
  let list = await a.drives.listDrives('DEMO1', ...ALL);
  assert.equal(list[0], first[0]);
  assert.equal(list[1]!.id, first[1]!.id);
  assert.deepEqual([list[1]!.end, list[1]!.distance], [360, 5]);
  await a.drives.retagSessions('DEMO1', [{ ...list[0]!, fromPlace: 7 }]);
  list = await a.drives.listDrives('DEMO1', ...ALL);
  assert.equal(list[0]!.fromPlace, 7);

  // another store on the same database: an upsert, a re-tagging, a rebuild that drops one and adds one
  const seen = await a.drives.listCharges('DEMO1', ...ALL);
  await b.drives.commitTracker('DEMO1', 2, 's', [{ op: 'put', session: charge('c', 400, 500, { energyAdded: 9.5 }) }]);
  assert.deepEqual((await a.drives.listCharges('DEMO1', ...ALL)).map((c) => [c.id, c.end, c.energyAdded]), [[seen[0]!.id, 500, 9.5]]);
  await b.drives.retagSessions('DEMO1', [{ ...list[0]!, fromPlace: 8 }]);
  assert.equal((await a.drives.listDrives('DEMO1', ...ALL))[0]!.fromPlace, 8);
  await b.drives.replaceSessions('DEMO1', [drive('x', 100, 200), drive('z', 600, 700)], 's2', 0);
  assert.deepEqual((await a.drives.listDrives('DEMO1', ...ALL)).map((d) => [d.key, d.fromPlace]), [['x', null], ['z', null]]);
});

test('two databases in one process: the same ids never mix', async (t) => {
  const one = (await freshStore(t)).store;
  const two = (await freshStore(t)).store;
  await seed(one);
  await seed(two);
  await one.drives.commitTracker('DEMO1', 0, 's', [{ op: 'put', session: drive('a', 100, 200, { distance: 1 }) }]);
  await two.drives.commitTracker('DEMO1', 0, 's', [{ op: 'put', session: drive('a', 100, 200, { distance: 2 }) }]);
  const [d1] = await one.drives.listDrives('DEMO1', ...ALL);
  const [d2] = await two.drives.listDrives('DEMO1', ...ALL);
  assert.deepEqual([d1!.distance, d2!.distance], [1, 2]);
  assert.deepEqual([(await one.drives.listDrives('DEMO1', ...ALL))[0]!.distance, (await two.drives.listDrives('DEMO1', ...ALL))[0]!.distance], [1, 2]);
});

test('SQLite: the first step of a list reads the list index alone', { skip: SQLITE_ONLY }, async (t) => {
  const { store, dir } = await freshStore(t);
  await seed(store);
  const db = new Database(join(dir, SQLITE_FILE), { readonly: true });
  t.after(() => db.close());
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${revisionsSql(() => '?')}`).all('DEMO1', 'drive', 5, 9) as { detail: string }[];
  assert.ok(plan.some((p) => p.detail.includes('USING COVERING INDEX sessions_span')), JSON.stringify(plan));
});

test('SessionMemo: a write between the two reads (a row gone, a newer revision) makes the list one query of the table', async () => {
  const memo = new SessionMemo();
  const row = (id: number, rev: number, key: string): RevisedRow => ({ id, rev, vehicle_id: 'DEMO1', body: JSON.stringify(drive(key, id * 100, id * 100 + 50)) });
  const whole = (): SessionRow[] => [row(1, 0, 'whole-1'), row(3, 0, 'whole-3')];
  let fetched: number[][] = [];
  const fetch = (rows: RevisedRow[]) => (ids: number[]) => (fetched.push(ids), rows.filter((r) => ids.includes(r.id)));

  const first = await memo.list([{ id: 1, rev: 0 }, { id: 2, rev: 0 }], fetch([row(1, 0, 'a'), row(2, 0, 'b')]), toStoredDrive, whole);
  assert.deepEqual(first.map((d) => d.key), ['a', 'b']);
  // remembered: nothing fetched
  fetched = [];
  assert.deepEqual((await memo.list([{ id: 2, rev: 0 }], fetch([]), toStoredDrive, whole)).map((d) => d.key), ['b']);
  assert.deepEqual(fetched, []);
  // row 2 changed to rev 1, then went before it was fetched: the whole list, not the old object
  assert.deepEqual((await memo.list([{ id: 1, rev: 0 }, { id: 2, rev: 1 }], fetch([]), toStoredDrive, whole)).map((d) => d.key), ['whole-1', 'whole-3']);
  // fetched at a newer revision than the first read named
  assert.deepEqual((await memo.list([{ id: 2, rev: 1 }], fetch([row(2, 2, 'c')]), toStoredDrive, whole)).map((d) => d.key), ['whole-1', 'whole-3']);
});
