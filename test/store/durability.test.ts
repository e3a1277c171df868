/**
 * "Seen" implies "committed" at the store's interface: afterCommit runs after the commit of what
 * was written before it (brought forward to the end of the event-loop turn, not the write-behind
 * delay), in call order; reads of buffered data wait for its commit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { freshStore, seed, sleep, SQLITE_FILE, SQLITE_ONLY } from './helpers.js';

const msg = (data: string, time = 100) => ({ code: 'S', data, time, paranoid: false, ptoken: '' });

/** A second connection to the file: what it sees is committed. */
function committedRows(t: { after: (fn: () => void) => void }, dir: string): () => string[] {
  const other = new Database(join(dir, SQLITE_FILE), { readonly: true });
  t.after(() => other.close());
  const stmt = other.prepare('SELECT vehicle_id || \':\' || code || \'=\' || data AS row FROM car_messages ORDER BY vehicle_id, code');
  return () => (stmt.all() as { row: string }[]).map((r) => r.row);
}

test('afterCommit: at once when nothing is buffered, else once the write is committed, at the end of the turn', { skip: SQLITE_ONLY }, async (t) => {
  const { dir, store } = await freshStore(t, { writeBehindMs: 60_000 });
  await seed(store);
  const rows = committedRows(t, dir);
  const seen: string[] = [];

  store.afterCommit(() => seen.push('nothing buffered'));
  assert.deepEqual(seen, ['nothing buffered'], 'synchronous');

  store.putCarMessage('DEMO1', msg('one'));
  store.afterCommit(() => seen.push(`first: ${rows().join(' ')}`));
  store.afterCommit(() => seen.push('second'));
  assert.deepEqual(seen, ['nothing buffered'], 'not before the commit');
  await new Promise((r) => setImmediate(r));
  await sleep(1);
  // committed within the turn although the write-behind delay is a minute; in call order
  assert.deepEqual(seen, ['nothing buffered', 'first: DEMO1:S=one', 'second']);
});

test('afterCommit: callbacks wait for the batch in flight and the pending one, in call order, also when registered by a callback', async (t) => {
  const { store } = await freshStore(t, { writeBehindMs: 60_000 });
  await seed(store);
  const seen: string[] = [];
  store.putCarMessage('DEMO1', msg('one'));
  store.afterCommit(() => {
    seen.push('a');
    store.afterCommit(() => seen.push('a.1')); // nothing buffered now: after the callbacks already queued
  });
  store.afterCommit(() => seen.push('b'));
  await store.flush();
  assert.deepEqual(seen, ['a', 'b', 'a.1']);
});

test('a read of a buffered vehicle waits for its commit and returns what is committed; another vehicle is read at once', { skip: SQLITE_ONLY }, async (t) => {
  const { dir, store } = await freshStore(t, { writeBehindMs: 60_000 });
  await seed(store);
  await seed(store, 'DEMO2');
  const rows = committedRows(t, dir);
  store.putCarMessage('DEMO1', msg('buffered', 123));

  let otherDone = false;
  const other = store.getCarMessages('DEMO2').then((m) => {
    otherDone = true;
    return m;
  });
  const read = store.getCarMessages('DEMO1').then((m) => ({ m, rows: rows() }));
  const vehicle = store.getVehicle('DEMO1');
  assert.deepEqual(await other, []);
  assert.ok(otherDone);
  const { m, rows: atRead } = await read;
  assert.deepEqual(atRead, ['DEMO1:S=buffered'], 'committed when the read returned');
  assert.deepEqual(
    m.map((x) => x.data),
    ['buffered'],
  );
  assert.equal((await vehicle)?.lastUpdate, 123);
});

test('a failed commit: callbacks still run in order, the failure is reported, the store goes on', { skip: SQLITE_ONLY }, async (t) => {
  const errors: unknown[] = [];
  const { dir, store } = await freshStore(t, { writeBehindMs: 60_000, onBackgroundError: (e) => errors.push(e) });
  await seed(store);
  const other = new Database(join(dir, SQLITE_FILE));
  t.after(() => other.close());
  other.exec("CREATE TRIGGER boom BEFORE INSERT ON car_messages BEGIN SELECT RAISE(ABORT, 'boom'); END");

  const seen: string[] = [];
  store.putCarMessage('DEMO1', msg('lost'));
  store.afterCommit(() => seen.push('a'));
  store.afterCommit(() => {
    throw new Error('a callback that throws');
  });
  store.afterCommit(() => seen.push('b'));
  await sleep(20);
  assert.deepEqual(seen, ['a', 'b']);
  assert.deepEqual(errors.map(String).sort(), ['Error: a callback that throws', 'SqliteError: boom']);
  assert.deepEqual(await store.getCarMessages('DEMO1'), [], 'what failed is not shown');

  other.exec('DROP TRIGGER boom');
  store.putCarMessage('DEMO1', msg('kept'));
  assert.deepEqual((await store.getCarMessages('DEMO1')).map((x) => x.data), ['kept']);
});

test('the write-behind commits with synchronous=NORMAL, a durable batch and direct writes with FULL', { skip: SQLITE_ONLY }, async (t) => {
  const { store } = await freshStore(t, { writeBehindMs: 60_000 });
  await seed(store);
  // looked at through the store's connection: the setting in force when each batch is committed
  const inside = store as unknown as { db: Database.Database; commitTransaction: (batch: unknown) => void };
  const sync = (): number => inside.db.pragma('synchronous', { simple: true }) as number;
  const FULL = 2;
  const NORMAL = 1;
  assert.equal(sync(), FULL);
  const during: number[] = [];
  const commit = inside.commitTransaction;
  inside.commitTransaction = (batch) => {
    during.push(sync());
    commit(batch);
  };

  store.putCarMessage('DEMO1', msg('buffered'));
  await store.flush();
  await store.addHistorical({ vehicleId: 'DEMO1', type: 'T', recordNumber: 2, time: 1, data: 'durable', expires: 1e10 }, true);
  assert.deepEqual(during, [NORMAL, FULL]);
  assert.equal(sync(), FULL, 'back to FULL for direct writes');
});

test('a commit that finds the database locked by another process is tried again: nothing is lost', { skip: SQLITE_ONLY }, async (t) => {
  const errors: unknown[] = [];
  const { dir, store } = await freshStore(t, { writeBehindMs: 60_000, onBackgroundError: (e) => errors.push(e) });
  await seed(store);
  const rows = committedRows(t, dir);
  const admin = new Database(join(dir, SQLITE_FILE));
  t.after(() => admin.close());
  admin.exec('BEGIN IMMEDIATE'); // e.g. an admin command holding the write lock past the busy timeout
  // the lock goes while the store waits for its next try (the busy wait blocks this process)
  setTimeout(() => admin.exec('COMMIT'), 10);
  store.putCarMessage('DEMO1', msg('kept'));
  const seen: string[] = [];
  store.afterCommit(() => seen.push(rows().join(' ')));
  await store.flush();
  assert.deepEqual(seen, ['DEMO1:S=kept'], 'the callback ran after the commit that succeeded');
  assert.ok(errors.length >= 1 && /trying again/.test(String(errors[0])), String(errors[0]));
});

test('a batch that fails for one vehicle still commits the other vehicles\' rows', { skip: SQLITE_ONLY }, async (t) => {
  const { dir, store } = await freshStore(t, { writeBehindMs: 60_000 });
  await seed(store);
  const owner = (await store.getVehicle('DEMO1'))!.ownerId;
  await store.addVehicle({ id: 'OTHER', ownerId: owner, name: 'OTHER', carPassword: 'x' });
  const rows = committedRows(t, dir);
  const other = new Database(join(dir, SQLITE_FILE));
  t.after(() => other.close());
  other.exec("CREATE TRIGGER boom BEFORE INSERT ON car_messages WHEN NEW.vehicle_id = 'DEMO1' BEGIN SELECT RAISE(ABORT, 'boom'); END");
  store.putCarMessage('DEMO1', msg('lost'));
  store.putCarMessage('OTHER', msg('kept'));
  await assert.rejects(store.flush(), /boom/, "DEMO1's rows are lost, and said so");
  assert.deepEqual(rows(), ['OTHER:S=kept']);
});
