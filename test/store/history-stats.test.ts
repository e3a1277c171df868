/**
 * store.historyStats (src/store/history-stats-store.ts): the plans of the historical reads and the
 * purge name the indexes they use (on SQLite: the primary key for the reads, the expiry index for
 * the purge, so neither reads the whole table), and the space of the table and of each index.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_DATABASE } from '../support/postgres.js';
import { freshStore, seed } from './helpers.js';

test('the plans name the indexes of the historical table', async (t) => {
  const { store } = await freshStore(t);
  const plans = await store.historyStats.plans();
  assert.deepEqual(
    plans.map((p) => p.query),
    ['summary', 'records', 'page', 'purge'],
  );
  for (const p of plans) assert.ok(p.plan.length > 0, p.query);
  if (TEST_DATABASE) {
    // PostgreSQL plans an empty table as it likes (a sequential scan is cheapest): only the names
    for (const p of plans) for (const name of p.indexes) assert.ok(['historical_key', 'historical_expires'].includes(name), name);
    return;
  }
  const of = (q: string) => plans.find((p) => p.query === q)!;
  assert.deepEqual(of('records').indexes, ['sqlite_autoindex_historical_1'], of('records').plan.join('\n'));
  assert.deepEqual(of('page').indexes, ['sqlite_autoindex_historical_1'], of('page').plan.join('\n'));
  assert.deepEqual(of('summary').indexes, ['sqlite_autoindex_historical_1'], of('summary').plan.join('\n'));
  assert.deepEqual(of('purge').indexes, ['historical_expires'], of('purge').plan.join('\n'));
  // a search of the index, never a scan of the table
  for (const q of ['records', 'page', 'purge']) assert.ok(!of(q).plan.some((l) => /^SCAN historical\b/.test(l)), of(q).plan.join('\n'));
});

test('the space of the table and of each index', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  for (let i = 0; i < 500; i++) await store.addHistorical({ vehicleId: 'DEMO1', type: 'D', recordNumber: 0, time: 1000 + i, data: 'x'.repeat(80), expires: 9999 });
  await store.flush();
  const s = await store.historyStats.storage();
  assert.equal(s.rows, 500);
  assert.ok(s.tableBytes >= 500 * 80, `table ${s.tableBytes} bytes`);
  assert.deepEqual(
    s.indexes.map((i) => i.name),
    TEST_DATABASE ? ['historical_expires', 'historical_key'] : ['historical_expires', 'sqlite_autoindex_historical_1'],
  );
  for (const i of s.indexes) assert.ok(i.bytes > 0, i.name);
});

test('insertMany: one write of many records, an upsert, records of unknown vehicles dropped', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  const rec = (time: number, data: string, vehicleId = 'DEMO1') => ({ vehicleId, type: 'D', recordNumber: 0, time, data, expires: 9999 });
  await store.historyStats.insertMany([rec(1, 'a'), rec(2, 'b'), rec(3, 'c', 'NOSUCHCAR')]);
  await store.historyStats.insertMany([rec(2, 'B'), rec(4, 'd')]);
  assert.deepEqual(
    (await store.getHistorical('DEMO1', 'D', 0)).map((r) => [r.time, r.data]),
    [
      [1, 'a'],
      [2, 'B'],
      [4, 'd'],
    ],
  );
  assert.equal((await store.historyStats.storage()).rows, 3);
});
