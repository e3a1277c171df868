import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshStore, seed } from './helpers.js';

test('purgeExpiredHistorical deletes expired records in bounded batches', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  for (let i = 0; i < 25; i++) {
    await store.addHistorical({ vehicleId: 'DEMO1', type: 'old', recordNumber: i, time: 100, data: 'x', expires: 1000 + i });
  }
  for (let i = 0; i < 5; i++) {
    await store.addHistorical({ vehicleId: 'DEMO1', type: 'live', recordNumber: i, time: 100, data: 'x', expires: 5000 });
  }
  // an expiry equal to now is not expired yet
  await store.addHistorical({ vehicleId: 'DEMO1', type: 'edge', recordNumber: 0, time: 100, data: 'x', expires: 2000 });

  assert.equal(await store.purgeExpiredHistorical(2000, 10), 10);
  assert.equal(await store.purgeExpiredHistorical(2000, 10), 10);
  assert.equal(await store.purgeExpiredHistorical(2000, 10), 5);
  assert.equal(await store.purgeExpiredHistorical(2000, 10), 0);
  assert.deepEqual(
    (await store.summarizeHistorical('DEMO1', 0)).map((s) => [s.type, s.totalRecords]),
    [
      ['edge', 1],
      ['live', 5],
    ],
  );
  assert.equal(await store.purgeExpiredHistorical(2001, 0), 0);
  assert.equal(await store.purgeExpiredHistorical(2001, 100), 1);
});
