/**
 * The traffic accounting of connected peers is written a slice at a time (src/server/housekeeping.ts
 * with src/core/sliced-sweep.ts): with an interval of several slices, every car that stays
 * connected still has its bytes written within an interval, and each peer's bytes are counted once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MpClient } from '../../src/mp-client/mp-client.js';
import { eventually, harness, roundTrip } from './helpers.js';

test('with the flush spread over three slices, three connected cars have their traffic written within the interval, once', async (ctx) => {
  const h = await harness(ctx, { housekeepingMs: 3000 }); // three slices of a second
  const ids = ['TESTCAR', 'SLICE2', 'SLICE3'];
  for (const id of ids.slice(1)) await h.t.addVehicle(id, h.ownerId, 'NETPASS');
  const cars: MpClient[] = [];
  for (const id of ids) {
    const { c } = await h.car({ vehicleId: id });
    c.send('S', '80,K,230,16,charging,standard,350,320,16,123,0,5.5,3,1,0,0,0,0,160,60,30,400,90');
    assert.deepEqual(await roundTrip(c), []);
    cars.push(c);
  }
  // the cars stay connected: nothing is counted at a disconnect, only by the slices
  const carRows = async () => {
    const rows = await Promise.all(ids.map(async (id) => (await h.t.server.store.getUtilisation(id, 0)).filter((r) => r.clientType === 'C')));
    return rows.every((r) => r.length === 1 && r[0]!.rx > 0) ? rows : undefined;
  };
  const rows = await eventually(carRows, 'every connected car has its traffic written', 8000);
  // what was written is what the car sent so far, counted once (the client counts the same bytes)
  await new Promise((r) => setTimeout(r, 3500)); // one more interval: nothing new to count
  const later = await carRows();
  assert.deepEqual(later, rows, 'a second round writes nothing for cars that sent nothing since');
  for (const [k, c] of cars.entries()) {
    assert.equal(rows[k]![0]!.rx, c.stats.bytesSent, `${ids[k]}: the bytes the server received from the car`);
  }
});
