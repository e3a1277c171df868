/**
 * Drives and charges in the store (src/store/drives-store.ts) on SQLite, or on PostgreSQL with
 * VTS_TEST_DATABASE: the tracker's guarded commit and its conflicts, upserts by key that keep the
 * id, removals, a rebuild's replacement, the list's overlap (open sessions included) with and
 * without paths and samples, re-tagging, removal with the vehicle, a closed store, and the
 * migration from the schema before sessions. Places: places.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { isVtsError } from '../../src/errors.js';
import { openStore } from '../../src/store/open.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/pg-schema.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/sqlite/migrations.js';
import type { Store } from '../../src/store/store.js';
import { freshSchema } from '../support/postgres.js';
import { needs, postgres, requireServices } from '../support/services.js';
import { bare, charge, drive } from './drives-helpers.js';
import { SQLITE_FILE, SQLITE_ONLY, freshPlace, freshStore, seed, tempDir } from './helpers.js';

const skipPg = await needs(postgres);
const ALL = [0, 1e12] as const;

test('a tracker commit: only at the expected sequence number (0: none yet); a conflict changes nothing', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  const d = store.drives;
  assert.equal(await d.loadTracker('DEMO1'), undefined);

  // no checkpoint yet: only 0 is expected
  assert.equal(await d.commitTracker('DEMO1', 1, '{"late":true}', [{ op: 'put', session: drive('k0', 10, null) }]), null);
  assert.equal(await d.loadTracker('DEMO1'), undefined);
  assert.deepEqual(await d.listDrives('DEMO1', ...ALL), []);

  assert.equal(await d.commitTracker('demo1', 0, '{"n":1}', [{ op: 'put', session: drive('a', 100, null) }]), 1);
  assert.deepEqual(await d.loadTracker('DEMO1'), { seq: 1, state: '{"n":1}' });

  // a second writer that also saw no checkpoint, and one that is behind
  assert.equal(await d.commitTracker('DEMO1', 0, '{"other":1}', [{ op: 'put', session: drive('b', 200, 300) }]), null);
  assert.equal(await d.commitTracker('DEMO1', 1, '{"n":2}', [{ op: 'put', session: drive('a', 100, 150) }]), 2);
  assert.equal(
    await d.commitTracker('DEMO1', 1, '{"other":2}', [
      { op: 'remove', session: 'drive', key: 'a' },
      { op: 'put', session: charge('c', 400, null) },
    ]),
    null,
  );
  assert.deepEqual(await d.loadTracker('DEMO1'), { seq: 2, state: '{"n":2}' });
  assert.deepEqual((await d.listDrives('DEMO1', ...ALL)).map((s) => [s.key, s.end]), [['a', 150]]);
  assert.deepEqual(await d.listCharges('DEMO1', ...ALL), []);

  // a commit without operations moves the checkpoint on
  assert.equal(await d.commitTracker('DEMO1', 2, '{"n":3}', []), 3);
  assert.deepEqual(await d.loadTracker('DEMO1'), { seq: 3, state: '{"n":3}' });
});

test('two writers with the same expected number at once: one commits, the other gets null', async (t) => {
  const place = freshPlace(t);
  const a = await place.open();
  const b = await place.open();
  await seed(a);
  for (let round = 0; round < 5; round++) {
    const seq = (await a.drives.loadTracker('DEMO1'))?.seq ?? 0;
    const results = await Promise.all([
      a.drives.commitTracker('DEMO1', seq, `a${round}`, [{ op: 'put', session: drive(`a${round}`, round * 100, null) }]),
      b.drives.commitTracker('DEMO1', seq, `b${round}`, [{ op: 'put', session: drive(`b${round}`, round * 100, null) }]),
    ]);
    const won = results.filter((r) => r !== null);
    assert.deepEqual(won, [seq + 1], `round ${round}: ${JSON.stringify(results)}`);
    const winner = results[0] !== null ? 'a' : 'b';
    assert.deepEqual(await b.drives.loadTracker('DEMO1'), { seq: seq + 1, state: `${winner}${round}` });
  }
  // only the winners' sessions are there
  assert.equal((await a.drives.listDrives('DEMO1', ...ALL)).length, 5);
});

test('a put upserts by kind and key: the id stays, every field and the path are replaced; a remove removes', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  await seed(store, 'DEMO2');
  const d = store.drives;
  const open = drive('live:100', 100, null);
  assert.equal(
    await d.commitTracker('DEMO1', 0, 's', [
      { op: 'put', session: open },
      { op: 'put', session: charge('live:100', 100, null) },
      { op: 'put', session: drive('gone', 50, 60) },
    ]),
    1,
  );
  await d.commitTracker('DEMO2', 0, 's', [{ op: 'put', session: drive('live:100', 100, 200) }]);
  const [before] = await d.listDrives('DEMO1', 90, 110);
  assert.deepEqual(bare((await d.getDrive('DEMO1', before!.id))!), open);
  assert.equal(before!.vehicleId, 'DEMO1');

  const closed = drive('live:100', 100, 900, {
    source: 'log',
    distance: 31.7,
    energyUsed: null,
    to: { lat: 1.5, lon: -2.25 },
    path: [{ t: 899, lat: 1.5, lon: -2.25, speed: null, soc: 70 }],
  });
  assert.equal(
    await d.commitTracker('DEMO1', 1, 's2', [
      { op: 'put', session: closed },
      { op: 'remove', session: 'drive', key: 'gone' },
      { op: 'remove', session: 'drive', key: 'never there' },
    ]),
    2,
  );
  const after = await d.listDrives('DEMO1', ...ALL, true);
  assert.equal(after.length, 1);
  assert.equal(after[0]!.id, before!.id);
  assert.deepEqual(bare(after[0]!), closed);
  // the charge of the same key is another session, untouched; so is the other vehicle's drive
  assert.equal((await d.listCharges('DEMO1', ...ALL)).length, 1);
  assert.deepEqual((await d.listDrives('DEMO2', ...ALL)).map((s) => [s.key, s.end]), [['live:100', 200]]);

  // put and remove of the same key in one commit: gone; the same key twice: the last one
  await d.commitTracker('DEMO1', 2, 's3', [
    { op: 'put', session: drive('x', 1000, 1100) },
    { op: 'put', session: drive('y', 1200, 1300) },
    { op: 'put', session: drive('y', 1200, 1350) },
    { op: 'remove', session: 'drive', key: 'x' },
  ]);
  assert.deepEqual((await d.listDrives('DEMO1', 1000, 2000)).map((s) => [s.key, s.end]), [['y', 1350]]);
});

test('a rebuild makes the sessions exactly the given ones: those that stay keep their ids, the rest go', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  await seed(store, 'DEMO2');
  const d = store.drives;
  await d.commitTracker('DEMO1', 0, 'old', [
    { op: 'put', session: drive('a', 100, 200) },
    { op: 'put', session: drive('b', 300, 400) },
    { op: 'put', session: drive('c', 500, null) },
    { op: 'put', session: charge('x', 250, 280) },
    { op: 'put', session: charge('y', 600, null) },
  ]);
  await d.commitTracker('DEMO2', 0, 'other', [{ op: 'put', session: drive('b', 300, 400) }]);
  const ids = new Map([...(await d.listDrives('DEMO1', ...ALL)), ...(await d.listCharges('DEMO1', ...ALL))].map((s) => [`${s.session}:${s.key}`, s.id]));
  const otherBefore = await d.listDrives('DEMO2', ...ALL, true);

  const a2 = drive('a', 100, 210, { source: 'log', path: [] });
  const c2 = drive('c', 500, 700);
  const y2 = charge('y', 600, 650, { chargeKind: 'dc', maxPower: 120.5 });
  assert.equal(await d.replaceSessions('demo1', [a2, c2, drive('d', 800, 900), y2, charge('z', 950, null)], 'rebuilt'), 2);
  assert.deepEqual(await d.loadTracker('DEMO1'), { seq: 2, state: 'rebuilt' });

  const drives = await d.listDrives('DEMO1', ...ALL, true);
  assert.deepEqual(
    drives.map((s) => s.key),
    ['a', 'c', 'd'],
  );
  assert.equal(drives[0]!.id, ids.get('drive:a'));
  assert.equal(drives[1]!.id, ids.get('drive:c'));
  assert.ok(![...ids.values()].includes(drives[2]!.id), 'a new session gets a new id');
  assert.deepEqual(bare(drives[0]!), a2);
  assert.deepEqual(bare(drives[1]!), c2);
  const charges = await d.listCharges('DEMO1', ...ALL, true);
  assert.deepEqual(
    charges.map((s) => s.key),
    ['y', 'z'],
  );
  assert.equal(charges[0]!.id, ids.get('charge:y'));
  assert.deepEqual(bare(charges[0]!), y2);
  assert.equal(await d.getDrive('DEMO1', ids.get('drive:b')!), undefined);
  assert.equal(await d.getCharge('DEMO1', ids.get('charge:x')!), undefined);
  // the other vehicle's sessions are its own
  assert.deepEqual(await d.listDrives('DEMO2', ...ALL, true), otherBefore);

  // the tracker that was following the vehicle is behind now
  assert.equal(await d.commitTracker('DEMO1', 1, 'stale', []), null);
  // a rebuild of a vehicle never tracked starts the numbers; of nothing, removes everything
  await seed(store, 'DEMO3');
  assert.equal(await d.replaceSessions('DEMO3', [drive('a', 1, 2)], 'r'), 1);
  assert.equal(await d.replaceSessions('DEMO1', [], 'empty'), 3);
  assert.deepEqual([...(await d.listDrives('DEMO1', ...ALL)), ...(await d.listCharges('DEMO1', ...ALL))], []);
});

test('the lists: sessions overlapping [from, to], ends and starts included, open ones to the end of time, oldest first', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  const d = store.drives;
  await d.commitTracker('DEMO1', 0, 's', [
    { op: 'put', session: drive('late', 300, 400) },
    { op: 'put', session: drive('early', 100, 200) },
    { op: 'put', session: drive('open', 500, null) },
    { op: 'put', session: charge('ch', 150, 250) },
    { op: 'put', session: charge('chopen', 450, null) },
  ]);
  const keys = async (from: number, to: number): Promise<string[]> => (await d.listDrives('DEMO1', from, to)).map((s) => s.key);
  assert.deepEqual(await keys(0, 99), []);
  assert.deepEqual(await keys(0, 100), ['early']);
  assert.deepEqual(await keys(200, 299), ['early']);
  assert.deepEqual(await keys(201, 299), []);
  assert.deepEqual(await keys(250, 350), ['late']);
  assert.deepEqual(await keys(150, 160), ['early']);
  assert.deepEqual(await keys(401, 499), []);
  assert.deepEqual(await keys(401, 500), ['open']);
  assert.deepEqual(await keys(10_000_000_000, 20_000_000_000), ['open']);
  assert.deepEqual(await keys(0, 1e12), ['early', 'late', 'open']);
  assert.deepEqual(await keys(300, 100), [], 'from after to');
  assert.deepEqual(await keys(-Infinity, Infinity), ['early', 'late', 'open']);
  assert.deepEqual(await keys(200.5, 299.5), [], 'fractions rounded inwards');
  assert.deepEqual(await keys(199.5, 300.5), ['early', 'late']);
  assert.deepEqual(await keys(NaN, 500), []);
  assert.deepEqual((await d.listCharges('DEMO1', 200, 460)).map((s) => s.key), ['ch', 'chopen']);
  assert.deepEqual((await d.listCharges('DEMO1', 251, 449)).map((s) => s.key), []);
  assert.deepEqual(await d.listDrives('OTHER', ...ALL), []);

  // paths and samples only when asked for; one session always with them
  const lean = await d.listDrives('DEMO1', ...ALL);
  assert.ok(lean.every((s) => s.path.length === 0));
  const full = await d.listDrives('DEMO1', ...ALL, true);
  assert.deepEqual(full.map((s) => s.path), [drive('early', 100, 200).path, drive('late', 300, 400).path, drive('open', 500, null).path]);
  assert.deepEqual(lean, full.map((s) => ({ ...s, path: [] })));
  const leanCharges = await d.listCharges('demo1', ...ALL);
  assert.ok(leanCharges.every((s) => s.samples.length === 0));
  const fullCharges = await d.listCharges('demo1', ...ALL, true);
  assert.deepEqual(bare(fullCharges[0]!), charge('ch', 150, 250));
  assert.deepEqual(bare((await d.getCharge('demo1', leanCharges[1]!.id))!), charge('chopen', 450, null));
  assert.deepEqual(bare((await d.getDrive('demo1', lean[2]!.id))!), drive('open', 500, null));

  // by id: within the vehicle and the kind only
  assert.equal(await d.getDrive('DEMO1', leanCharges[0]!.id), undefined);
  assert.equal(await d.getCharge('DEMO1', lean[0]!.id), undefined);
  await seed(store, 'DEMO2');
  assert.equal(await d.getDrive('DEMO2', lean[0]!.id), undefined);
  assert.equal(await d.getDrive('DEMO1', 0), undefined);
  assert.equal(await d.getDrive('DEMO1', 2 ** 70), undefined);
  assert.equal(await d.getCharge('DEMO1', 1.5), undefined);
});

test('values come back as they were put: numbers, nulls, text with any character', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  const d = store.drives;
  const odd = drive('log:\u0000\uffff ünï 🚗 "q"', 1_700_000_000, 1_700_003_600, {
    units: 'M',
    soh: null,
    energyUsed: 0.1 + 0.2,
    maxSpeed: 1e-7,
    startOdometer: 123456789.123,
    from: { lat: -89.999999, lon: 179.999999 },
    fromPlace: 7,
    toPlace: 12,
    path: [],
  });
  const state = JSON.stringify({ text: 'a\u0000b\uffffc', n: 1.5e300 });
  await d.commitTracker('DEMO1', 0, state, [{ op: 'put', session: odd }]);
  assert.deepEqual((await d.loadTracker('DEMO1'))?.state, state);
  const [got] = await d.listDrives('DEMO1', ...ALL, true);
  assert.deepEqual(bare(got!), odd);
  assert.equal(got!.energyUsed, 0.1 + 0.2);

  // a time with a fraction: kept as given, listed within its whole seconds
  const frac = charge('frac', 5000.25, 5999.75);
  await d.commitTracker('DEMO1', 1, state, [{ op: 'put', session: frac }]);
  assert.deepEqual((await d.listCharges('DEMO1', 5999, 5999, true)).map(bare), [frac]);
  assert.deepEqual((await d.listCharges('DEMO1', 5000, 5000)).map((s) => s.start), [5000.25]);
});

test('re-tagging replaces the place and cost fields only, of the vehicle\'s sessions of that kind', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  await seed(store, 'DEMO2');
  const d = store.drives;
  await d.commitTracker('DEMO1', 0, 's', [
    { op: 'put', session: drive('a', 100, 200) },
    { op: 'put', session: charge('c', 300, 400) },
  ]);
  await d.commitTracker('DEMO2', 0, 's', [{ op: 'put', session: charge('c', 300, 400) }]);
  const [dr] = await d.listDrives('DEMO1', ...ALL);
  const [ch] = await d.listCharges('DEMO1', ...ALL);
  const [other] = await d.listCharges('DEMO2', ...ALL);

  await d.retagSessions('demo1', [
    // everything but the tags differs in what is given: only the tags are taken
    { ...dr!, fromPlace: 3, toPlace: null, distance: 999, socEnd: 1, path: [] },
    { ...ch!, place: 3, cost: 12.34, currency: 'EUR', energyAdded: 1, end: null, samples: [] },
    // another vehicle's session: left alone
    { ...other!, place: 9, cost: 1, currency: 'USD' },
    // an id of a drive given as a charge: left alone
    { ...ch!, id: dr!.id, place: 5, cost: 5, currency: 'CHF' },
    { ...ch!, id: 987654, place: 5, cost: 5, currency: 'CHF' },
  ]);
  assert.deepEqual(bare((await d.getDrive('DEMO1', dr!.id))!), { ...drive('a', 100, 200), fromPlace: 3, toPlace: null });
  assert.deepEqual(bare((await d.getCharge('DEMO1', ch!.id))!), { ...charge('c', 300, 400), place: 3, cost: 12.34, currency: 'EUR' });
  assert.deepEqual(bare((await d.getCharge('DEMO2', other!.id))!), charge('c', 300, 400));
  await d.retagSessions('DEMO1', []);
  // the tracker's checkpoint is not the re-tagging's business
  assert.deepEqual(await d.loadTracker('DEMO1'), { seq: 1, state: 's' });
});

test('an unknown vehicle: its commit and its rebuild are refused, nothing is written', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  const d = store.drives;
  const unknown = (e: unknown): boolean => isVtsError(e, 'VTS_ERR_UNKNOWN_VEHICLE');
  await assert.rejects(d.commitTracker('NOPE', 0, 's', [{ op: 'put', session: drive('a', 1, 2) }]), unknown);
  await assert.rejects(d.commitTracker('NOPE', 0, 's', []), unknown);
  await assert.rejects(d.replaceSessions('NOPE', [drive('a', 1, 2)], 's'), unknown);
  assert.equal(await d.loadTracker('NOPE'), undefined);
  assert.deepEqual(await d.listDrives('NOPE', ...ALL), []);
});

test('removing a vehicle removes its sessions and its checkpoint; a vehicle added again under its id starts afresh', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await seed(store, 'DEMO2');
  const d = store.drives;
  await d.commitTracker('DEMO1', 0, 's', [
    { op: 'put', session: drive('a', 100, 200) },
    { op: 'put', session: charge('c', 300, null) },
  ]);
  await d.commitTracker('DEMO2', 0, 's', [{ op: 'put', session: drive('a', 100, 200) }]);
  const [dr] = await d.listDrives('DEMO1', ...ALL);
  assert.equal(await store.removeVehicle('demo1'), true);
  assert.equal(await d.loadTracker('DEMO1'), undefined);
  assert.equal(await d.getDrive('DEMO1', dr!.id), undefined);
  await store.addVehicle({ id: 'DEMO1', ownerId: owner.id, name: '', carPassword: 'pw' });
  assert.equal(await d.loadTracker('DEMO1'), undefined);
  assert.deepEqual([...(await d.listDrives('DEMO1', ...ALL)), ...(await d.listCharges('DEMO1', ...ALL))], []);
  assert.equal((await d.listDrives('DEMO2', ...ALL)).length, 1);
  // and the owner can go once its vehicles have
  await store.removeVehicle('DEMO1');
  await store.removeVehicle('DEMO2');
  assert.equal(await store.removeOwner('demo'), true);
});

test('a closed store: every call of the drives store rejects with VTS_ERR_STORE_CLOSED', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await store.drives.commitTracker('DEMO1', 0, 's', [{ op: 'put', session: drive('a', 1, 2) }]);
  const [dr] = await store.drives.listDrives('DEMO1', ...ALL);
  await store.close();
  const closed = (e: unknown): boolean => isVtsError(e, 'VTS_ERR_STORE_CLOSED');
  const d = store.drives;
  const p = { name: 'x', lat: 0, lon: 0, radius: 10, timezone: 'UTC', currency: 'EUR', pricePerKwh: 0, pricePerMinute: 0, sessionFee: 0, timeOfUse: [] };
  const calls: (() => Promise<unknown>)[] = [
    () => d.loadTracker('DEMO1'),
    () => d.commitTracker('DEMO1', 1, 's', []),
    () => d.replaceSessions('DEMO1', [], 's'),
    () => d.listDrives('DEMO1', ...ALL),
    () => d.listDrives('DEMO1', ...ALL, true),
    () => d.getDrive('DEMO1', dr!.id),
    () => d.getDrive('DEMO1', 0.5),
    () => d.listCharges('DEMO1', ...ALL),
    () => d.getCharge('DEMO1', 1),
    () => d.retagSessions('DEMO1', [dr!]),
    () => d.retagSessions('DEMO1', []),
    () => d.listPlaces(owner.id),
    () => d.addPlace(owner.id, p),
    () => d.updatePlace(owner.id, 1, p),
    () => d.updatePlace(owner.id, 0.5, p),
    () => d.removePlace(owner.id, 1),
    () => d.removePlace(owner.id, 0.5),
  ];
  for (const call of calls) await assert.rejects(call, closed);
});

/** What a database migrated from the schema before sessions must do: keep its vehicle, and keep sessions. */
async function checkMigrated(store: Store, ownerId: number): Promise<void> {
  assert.equal((await store.getVehicle('DEMO1'))?.ownerId, ownerId);
  assert.equal(await store.drives.commitTracker('DEMO1', 0, 's', [{ op: 'put', session: drive('a', 1, 2) }]), 1);
  assert.deepEqual((await store.drives.listDrives('DEMO1', ...ALL)).map((s) => s.key), ['a']);
  assert.equal((await store.drives.addPlace(ownerId, { name: 'home', lat: 0, lon: 0, radius: 10, timezone: 'UTC', currency: 'EUR', pricePerKwh: 0, pricePerMinute: 0, sessionFee: 0, timeOfUse: [] })).name, 'home');
}

test('migration: a SQLite file of the schema before sessions gets their tables and keeps its data', { skip: SQLITE_ONLY }, async (t) => {
  const dir = tempDir(t);
  const db = new Database(join(dir, SQLITE_FILE));
  const before = MIGRATIONS.findIndex((m) => m.description === 'drives and charges');
  for (const m of MIGRATIONS.slice(0, before)) db.exec(m.sql);
  db.pragma(`user_version = ${before}`);
  const ownerId = Number(db.prepare("INSERT INTO owners (name, password_hash, created) VALUES ('demo', 'h', 1)").run().lastInsertRowid);
  db.prepare("INSERT INTO vehicles (id, owner_id, car_password, created) VALUES ('DEMO1', ?, 'pw', 1)").run(ownerId);
  db.close();

  const store = await openStore(dir);
  t.after(() => store.close().catch(() => undefined));
  await checkMigrated(store, ownerId);
  const check = new Database(join(dir, SQLITE_FILE), { readonly: true });
  t.after(() => check.close());
  assert.equal(check.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  assert.deepEqual(check.pragma('foreign_key_check'), []);
  // the list is one range of its index
  const plan = check
    .prepare("EXPLAIN QUERY PLAN SELECT id FROM sessions WHERE vehicle_id = 'A' AND kind = 'drive' AND coalesce(end_time, 9000000000000000) >= 5 AND start_time <= 9 ORDER BY start_time, id")
    .all() as { detail: string }[];
  assert.ok(plan.some((p) => p.detail.includes('USING INDEX sessions_span') || p.detail.includes('USING COVERING INDEX sessions_span')), JSON.stringify(plan));
});

test('migration: a PostgreSQL schema of the version before sessions gets their tables and keeps its data', { skip: skipPg }, async (t) => {
  await requireServices(postgres);
  const s = freshSchema();
  t.after(() => s.drop());
  const client = new pg.Client({ connectionString: s.url });
  await client.connect();
  let ownerId: number;
  try {
    await client.query(`CREATE SCHEMA ${s.schema}`);
    const before = PG_MIGRATIONS.findIndex((m) => m.description === 'drives and charges');
    for (const m of PG_MIGRATIONS.slice(0, before)) await client.query(m.sql);
    await client.query('UPDATE vts_schema_version SET version = $1', [before]);
    ownerId = Number((await client.query("INSERT INTO owners (name, password_hash, created) VALUES ('demo', 'h', 1) RETURNING id")).rows[0].id);
    await client.query("INSERT INTO vehicles (id, owner_id, car_password, created) VALUES ('DEMO1', $1, 'pw', 1)", [ownerId]);
  } finally {
    await client.end();
  }
  const store = await openStore('', { database: s.url, create: false });
  t.after(() => store.close().catch(() => undefined));
  await checkMigrated(store, ownerId);
});
