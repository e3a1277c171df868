import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import type { HistoricalRecord } from '../../src/store/store.js';
import { freshStore, seed, SQLITE_FILE, SQLITE_ONLY } from './helpers.js';

const rec = (recordNumber: number, data: string): HistoricalRecord => ({
  vehicleId: 'DEMO1',
  type: '*-LOG-Trip',
  recordNumber,
  time: 1000,
  data,
  expires: 1e10,
});

test('durable addHistorical is visible to a second connection once it resolves; buffered ones after the flush', { skip: SQLITE_ONLY }, async (t) => {
  const { dir, store } = await freshStore(t, { writeBehindMs: 60_000 });
  await seed(store);
  const other = new Database(join(dir, SQLITE_FILE), { readonly: true });
  t.after(() => other.close());
  const rows = (): string[] =>
    (other.prepare('SELECT data FROM historical ORDER BY record_number').all() as { data: string }[]).map((r) => r.data);

  await store.addHistorical(rec(1, 'buffered'));
  assert.deepEqual(rows(), []);

  // many durable writes of one tick share one commit; each resolves after it
  const durable = [store.addHistorical(rec(2, 'durable a'), true), store.addHistorical(rec(3, 'durable b'), true)];
  assert.deepEqual(rows(), []);
  await durable[0];
  // the commit includes everything buffered before
  assert.deepEqual(rows(), ['buffered', 'durable a', 'durable b']);
  await durable[1];

  await store.addHistorical(rec(4, 'buffered later'));
  assert.deepEqual(rows(), ['buffered', 'durable a', 'durable b']);
  await store.flush();
  assert.deepEqual(rows(), ['buffered', 'durable a', 'durable b', 'buffered later']);
});

test('a durable write whose commit fails rejects; background failures go to onBackgroundError', { skip: SQLITE_ONLY }, async (t) => {
  const errors: unknown[] = [];
  const { dir, store } = await freshStore(t, { writeBehindMs: 10, onBackgroundError: (e) => errors.push(e) });
  await seed(store);
  // another connection makes every insert into historical fail
  const other = new Database(join(dir, SQLITE_FILE));
  t.after(() => other.close());
  other.exec("CREATE TRIGGER boom BEFORE INSERT ON historical BEGIN SELECT RAISE(ABORT, 'boom'); END");

  await assert.rejects(store.addHistorical(rec(1, 'x'), true), /boom/);

  await store.addHistorical(rec(2, 'y')); // non-durable: nobody to reject
  await new Promise((r) => setTimeout(r, 100));
  assert.ok(errors.length >= 1 && errors.every((e) => /boom/.test(String(e))));

  // the store keeps working once the cause is gone
  other.exec('DROP TRIGGER boom');
  await store.addHistorical(rec(3, 'z'), true);
  assert.deepEqual(
    (await store.getHistorical('DEMO1', '*-LOG-Trip', 0)).map((r) => r.data),
    ['z'],
  );
});
