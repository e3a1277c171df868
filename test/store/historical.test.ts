import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HistoricalRecord } from '../../src/store/store.js';
import { freshStore, seed } from './helpers.js';

const rec = (type: string, recordNumber: number, time: number, data: string, expires = 1e10): HistoricalRecord => ({
  vehicleId: 'DEMO1',
  type,
  recordNumber,
  time,
  data,
  expires,
});

test('historical: upsert replaces data and expiry of the same key', async (t) => {
  const { store } = await freshStore(t, { writeBehindMs: 60_000 });
  await seed(store);
  await store.addHistorical(rec('T', 1, 100, 'old', 500));
  await store.addHistorical(rec('T', 1, 100, 'buffered twice', 600)); // coalesced in the buffer
  await store.flush();
  await store.addHistorical(rec('T', 1, 100, 'new', 700)); // upsert in the database
  await store.addHistorical(rec('T', 2, 100, 'other number'));
  await store.addHistorical(rec('T', 1, 101, 'other time'));
  // reads flush first: read-your-writes
  assert.deepEqual(await store.getHistorical('demo1', 'T', 0), [
    rec('T', 1, 100, 'new', 700),
    rec('T', 2, 100, 'other number'),
    rec('T', 1, 101, 'other time'),
  ]);
});

test('historical: getHistorical orders by time then record number, filters time > since, matches the type without regard to case', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  for (const r of [rec('T', 3, 50, 'c'), rec('T', 1, 60, 'e'), rec('T', 2, 50, 'b'), rec('T', 0, 40, 'a'), rec('T', 9, 55, 'd')]) {
    await store.addHistorical(r);
  }
  await store.addHistorical(rec('t', 0, 70, 'lower-case type'));
  assert.deepEqual(
    (await store.getHistorical('DEMO1', 'T', 50)).map((r) => r.data),
    ['d', 'e', 'lower-case type'],
  );
  assert.deepEqual(
    (await store.getHistorical('DEMO1', 'T', Number.NEGATIVE_INFINITY)).map((r) => r.data),
    ['a', 'b', 'c', 'd', 'e', 'lower-case type'],
  );
  // REF's collation: 't' and 'T' are the same type
  assert.deepEqual(
    (await store.getHistorical('DEMO1', 't', 0)).map((r) => r.data),
    ['a', 'b', 'c', 'd', 'e', 'lower-case type'],
  );
  assert.deepEqual(await store.getHistorical('DEMO1', 'NONE', 0), []);
  assert.deepEqual(await store.getHistorical('OTHER', 'T', 0), []);
});

test('historical: summary per type ordered without regard to case (REF collation), with REF totalSize arithmetic (bytes)', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  await seed(store, 'OTHER');
  await store.addHistorical(rec('S', 0, 100, 'abc'));
  await store.addHistorical(rec('S', 0, 200, 'abcd'));
  await store.addHistorical(rec('S', 1, 300, 'é')); // two bytes in UTF-8
  await store.addHistorical(rec('a', 5, 150, ''));
  await store.addHistorical(rec('B', 5, 150, 'x'));
  await store.addHistorical(rec('*-LOG-Trip', 7, 120, 'trip'));
  await store.addHistorical(rec('*-LOG-Trip', 7, 90, 'old trip')); // time not > since below
  await store.addHistorical({ ...rec('S', 0, 100, 'other vehicle'), vehicleId: 'OTHER' });

  const summary = await store.summarizeHistorical('demo1', 90);
  // vehicle id DEMO1 = 5 bytes; per record: len(type) + len(data) + 5 + 20
  assert.deepEqual(summary, [
    { type: '*-LOG-Trip', distinctRecords: 1, totalRecords: 1, totalSize: 10 + 4 + 25, first: 120, last: 120 },
    { type: 'a', distinctRecords: 1, totalRecords: 1, totalSize: 1 + 0 + 25, first: 150, last: 150 },
    { type: 'B', distinctRecords: 1, totalRecords: 1, totalSize: 1 + 1 + 25, first: 150, last: 150 },
    {
      type: 'S',
      distinctRecords: 2,
      totalRecords: 3,
      totalSize: 1 + 3 + 25 + (1 + 4 + 25) + (1 + 2 + 25),
      first: 100,
      last: 300,
    },
  ]);
  assert.equal((await store.summarizeHistorical('DEMO1', 0))[0]?.totalRecords, 2);
  assert.deepEqual(
    (await store.summarizeHistorical('DEMO1', 150)).map((s) => s.type),
    ['S'],
  );
  assert.deepEqual(await store.summarizeHistorical('NOBODY', 0), []);
});

test('historical: record types are looked up case-insensitively, as the reference server does', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  await store.addHistorical(rec('*-Log-Notification', 0, 100, 'A,x'), true);
  const rows = await store.getHistorical('DEMO1', '*-LOG-Notification', 0);
  assert.deepEqual(rows, [rec('*-Log-Notification', 0, 100, 'A,x')]);
});
