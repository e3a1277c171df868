import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshStore, seed } from './helpers.js';

const DAY1 = 19000 * 86400;
const DAY2 = DAY1 + 86400;

test('utilisation: deltas add up, in the buffer and in the database', async (t) => {
  const { store } = await freshStore(t, { writeBehindMs: 60_000 });
  await seed(store);
  store.addUtilisation([
    { vehicleId: 'demo1', day: DAY1, clientType: 'C', rx: 10, tx: 20 },
    { vehicleId: 'DEMO1', day: DAY1, clientType: 'A', rx: 1, tx: 2 },
  ]);
  store.addUtilisation([{ vehicleId: 'DEMO1', day: DAY1, clientType: 'C', rx: 5, tx: 5 }]);
  await store.flush();
  store.addUtilisation([
    { vehicleId: 'DEMO1', day: DAY1, clientType: 'C', rx: 100, tx: 200 },
    { vehicleId: 'DEMO1', day: DAY2, clientType: 'C', rx: 7, tx: 8 },
    { vehicleId: 'DEMO1', day: DAY2, clientType: 'B', rx: 3, tx: 4 },
  ]);
  // reads flush first; newest day first
  assert.deepEqual(await store.getUtilisation('DEMO1', 0), [
    { day: DAY2, clientType: 'B', rx: 3, tx: 4 },
    { day: DAY2, clientType: 'C', rx: 7, tx: 8 },
    { day: DAY1, clientType: 'A', rx: 1, tx: 2 },
    { day: DAY1, clientType: 'C', rx: 115, tx: 225 },
  ]);
  assert.equal((await store.getUtilisation('DEMO1', DAY2)).length, 2);

  assert.equal(await store.purgeUtilisation(DAY2), 2);
  assert.deepEqual(
    (await store.getUtilisation('DEMO1', 0)).map((r) => r.day),
    [DAY2, DAY2],
  );
});

test('utilisation appears as *-OVM-Utilisation history (C and A only)', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  store.addUtilisation([
    { vehicleId: 'DEMO1', day: DAY1, clientType: 'C', rx: 1000, tx: 20 },
    { vehicleId: 'DEMO1', day: DAY1, clientType: 'A', rx: 3, tx: 45678 },
    { vehicleId: 'DEMO1', day: DAY1, clientType: 'B', rx: 9, tx: 9 },
    { vehicleId: 'DEMO1', day: DAY2, clientType: 'C', rx: 1, tx: 2 },
  ]);
  await store.addHistorical({ vehicleId: 'DEMO1', type: 'S', recordNumber: 0, time: DAY1, data: 'x', expires: 1e10 });

  const records = await store.getHistorical('DEMO1', '*-OVM-Utilisation', 0);
  assert.deepEqual(
    records.map((r) => [r.time, r.recordNumber, r.data]),
    [
      [DAY1, 0, '20'], // server sent to the car = car received
      [DAY1, 1, '1000'], // server received from the car
      [DAY1, 2, '45678'], // sent to apps
      [DAY1, 3, '3'], // received from apps
      [DAY2, 0, '2'],
      [DAY2, 1, '1'],
    ],
  );
  assert.ok(records.every((r) => r.vehicleId === 'DEMO1' && r.type === '*-OVM-Utilisation'));

  const summary = await store.summarizeHistorical('DEMO1', 0);
  const per = (data: string): number => 17 + data.length + 5 + 20; // len('*-OVM-Utilisation') = 17
  assert.deepEqual(summary, [
    {
      type: '*-OVM-Utilisation',
      distinctRecords: 4,
      totalRecords: 6,
      totalSize: per('20') + per('1000') + per('45678') + per('3') + per('2') + per('1'),
      first: DAY1,
      last: DAY2,
    },
    { type: 'S', distinctRecords: 1, totalRecords: 1, totalSize: 1 + 1 + 25, first: DAY1, last: DAY1 },
  ]);
  assert.deepEqual(
    (await store.getHistorical('DEMO1', '*-OVM-Utilisation', DAY1)).map((r) => r.data),
    ['2', '1'],
  );
});

test('*-OVM-Utilisation: any case of the type reads the counters with the stored records of that type; other types read the table alone', async (t) => {
  const { store } = await freshStore(t);
  await seed(store);
  store.addUtilisation([{ vehicleId: 'DEMO1', day: DAY1, clientType: 'C', rx: 1000, tx: 20 }]);
  await store.addHistorical({ vehicleId: 'DEMO1', type: '*-OVM-Utilisation', recordNumber: 9, time: DAY1, data: 'stored', expires: 1e10 });
  await store.addHistorical({ vehicleId: 'DEMO1', type: 'D', recordNumber: 0, time: DAY1, data: 'd', expires: 1e10 });
  for (const type of ['*-OVM-Utilisation', '*-ovm-UTILISATION']) {
    assert.deepEqual(
      (await store.getHistorical('DEMO1', type, 0)).map((r) => [r.recordNumber, r.data]),
      [
        [0, '20'],
        [1, '1000'],
        [9, 'stored'],
      ],
      type,
    );
  }
  assert.deepEqual((await store.getHistorical('DEMO1', 'd', 0)).map((r) => [r.type, r.data]), [['D', 'd']]);
});
