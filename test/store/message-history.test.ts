/**
 * putCarMessage with a history expiry: the message is also its historical record (type = code,
 * record number 0), one record per second of the messages buffered, the latest data of each.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshStore, seed } from './helpers.js';

const msg = (code: string, data: string, time: number) => ({ code, data, time, paranoid: false, ptoken: '' });

test('message history: one record per code and second, the latest data of each; the latest message stays one row', async (t) => {
  const { store } = await freshStore(t, { writeBehindMs: 60_000 });
  await seed(store);
  store.putCarMessage('DEMO1', msg('S', 'a', 100), 1000);
  store.putCarMessage('DEMO1', msg('S', 'b', 100), 1000); // same second: replaces a
  store.putCarMessage('DEMO1', msg('S', 'c', 101), 1001); // next second: b stays a record
  store.putCarMessage('DEMO1', msg('D', 'd', 101)); // no history
  store.putCarMessage('DEMO1', msg('S', 'e', 102), 1002);
  await store.flush();
  store.putCarMessage('DEMO1', msg('S', 'f', 102), 1002); // a later batch, same second: replaces e
  const rows = (await store.getHistorical('DEMO1', 'S', 0)).map((r) => [r.time, r.recordNumber, r.data, r.expires]);
  assert.deepEqual(rows, [
    [100, 0, 'b', 1000],
    [101, 0, 'c', 1001],
    [102, 0, 'f', 1002],
  ]);
  assert.deepEqual(await store.getHistorical('DEMO1', 'D', 0), []);
  assert.deepEqual(
    (await store.getCarMessages('DEMO1')).map((m) => [m.code, m.data]).sort(),
    [
      ['D', 'd'],
      ['S', 'f'],
    ],
  );
});

test('message history: an addHistorical record of the very same key buffered in the same batch wins', async (t) => {
  const { store } = await freshStore(t, { writeBehindMs: 60_000 });
  await seed(store);
  await store.addHistorical({ vehicleId: 'DEMO1', type: 'S', recordNumber: 0, time: 100, data: 'record', expires: 5000 });
  store.putCarMessage('DEMO1', msg('S', 'message', 100), 1000);
  store.putCarMessage('DEMO1', msg('D', 'message', 100), 1000);
  await store.addHistorical({ vehicleId: 'DEMO1', type: 'D', recordNumber: 0, time: 100, data: 'record', expires: 5000 });
  store.putCarMessage('DEMO1', msg('D', 'next second', 101), 1001); // the D of second 100 becomes a record of its own
  await store.flush();
  assert.deepEqual(
    (await store.getHistorical('DEMO1', 'S', 0)).map((r) => [r.data, r.expires]),
    [['record', 5000]],
  );
  assert.deepEqual(
    (await store.getHistorical('DEMO1', 'D', 0)).map((r) => [r.time, r.data]),
    [
      [100, 'record'],
      [101, 'next second'],
    ],
  );
});

test('message history of a removed vehicle is discarded with its buffered messages', async (t) => {
  const { store } = await freshStore(t, { writeBehindMs: 60_000 });
  await seed(store);
  store.putCarMessage('DEMO1', msg('S', 'a', 100), 1000);
  store.putCarMessage('DEMO1', msg('S', 'b', 101), 1000);
  assert.ok(await store.removeVehicle('DEMO1'));
  await seed(store);
  await store.flush();
  assert.deepEqual(await store.getHistorical('DEMO1', 'S', 0), []);
});
