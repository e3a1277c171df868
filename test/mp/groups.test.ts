/**
 * Group messages (docs/protocol/mp.md §14): a car's `g<group>,<data>` reaches every app subscribed to
 * the (upper-cased) group with `G`, across vehicles and owners, as `g<vehicleid>,<GROUP>,<data>`;
 * `G` answers the current data of the group at once (batch clients get it but are not
 * subscribed); a car's entries go when it disconnects. Nothing of it is stored.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness, m, roundTrip } from './helpers.js';

test('transcript flow: an app subscribes before the car logs in and gets the car group message', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');
  app.send('G', 'group1');
  assert.deepEqual(await roundTrip(app), [], 'no group data yet');

  const { c: car } = await h.car();
  assert.deepEqual(await app.next(), m('Z', '1'));
  assert.deepEqual(await batch.next(), m('Z', '1'));
  car.send('g', 'group1,group message');
  assert.deepEqual(await roundTrip(car), []);
  assert.deepEqual(await roundTrip(app), [m('g', 'TESTCAR,GROUP1,group message')], 'no T0: not a stored message');
  assert.deepEqual(await roundTrip(batch), [], 'the batch client is not subscribed');

  // not stored: a new app gets no replay of it, and the car counts as never updated
  const { initial } = await h.client('A');
  assert.deepEqual(initial, [m('Z', '1'), m('T', '3020399')]);
});

test('G returns the current group data at once; later updates reach every subscribed app', async (ctx) => {
  const h = await harness(ctx);
  const { c: car } = await h.car();
  car.send('g', 'Group1,soc 80');
  car.send('g', 'group2,other group');
  await roundTrip(car);

  const { c: app1 } = await h.client('A');
  app1.send('G', 'GROUP1');
  assert.deepEqual(await roundTrip(app1), [m('g', 'TESTCAR,GROUP1,soc 80')]);
  const { c: app2 } = await h.client('A');
  app2.send('G', 'group1,anything after the group id is ignored');
  assert.deepEqual(await roundTrip(app2), [m('g', 'TESTCAR,GROUP1,soc 80')]);

  car.send('g', 'group1,soc 81,with,commas');
  car.send('g', 'group2,not subscribed');
  await roundTrip(car);
  for (const app of [app1, app2]) assert.deepEqual(await roundTrip(app), [m('g', 'TESTCAR,GROUP1,soc 81,with,commas')]);

  // the latest data per car is kept
  const { c: app3 } = await h.client('A');
  app3.send('G', 'group1');
  assert.deepEqual(await roundTrip(app3), [m('g', 'TESTCAR,GROUP1,soc 81,with,commas')]);
});

test("a batch client's G gets the current data but does not subscribe", async (ctx) => {
  const h = await harness(ctx);
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  assert.deepEqual(await batch.next(), m('Z', '1'));
  car.send('g', 'group1,first');
  await roundTrip(car);

  batch.send('G', 'group1');
  assert.deepEqual(await roundTrip(batch), [m('g', 'TESTCAR,GROUP1,first')]);
  car.send('g', 'group1,second');
  await roundTrip(car);
  assert.deepEqual(await roundTrip(batch), []);
});

test('groups span vehicles of different owners', async (ctx) => {
  const h = await harness(ctx);
  const otherOwner = await h.t.addUser('other', 'otherpass');
  await h.t.addVehicle('OTHERCAR', otherOwner, 'OTHERPASS');
  const other = { vehicleId: 'OTHERCAR', password: 'OTHERPASS' };

  const { c: app } = await h.client('A');
  const { c: otherApp } = await h.client('A', other);
  app.send('G', 'fleet');
  otherApp.send('G', 'fleet');
  await roundTrip(app);
  await roundTrip(otherApp);

  const { c: car } = await h.car();
  const { c: otherCar } = await h.car(other);
  assert.deepEqual(await app.next(), m('Z', '1'));
  assert.deepEqual(await otherApp.next(), m('Z', '1'));

  car.send('g', 'fleet,from testcar');
  await roundTrip(car);
  otherCar.send('g', 'FLEET,from othercar');
  await roundTrip(otherCar);
  const expected = [m('g', 'TESTCAR,FLEET,from testcar'), m('g', 'OTHERCAR,FLEET,from othercar')];
  assert.deepEqual(await roundTrip(app), expected);
  assert.deepEqual(await roundTrip(otherApp), expected);

  // a new subscriber gets one line per car in the group (order not specified)
  const { c: third } = await h.client('A', other);
  third.send('G', 'fleet');
  const lines = await roundTrip(third);
  assert.deepEqual(
    lines.map((x) => x.code + x.data).sort(),
    ['gOTHERCAR,FLEET,from othercar', 'gTESTCAR,FLEET,from testcar'],
  );
});

test("a car's group entries are removed when it disconnects", async (ctx) => {
  const h = await harness(ctx);
  const otherOwner = await h.t.addUser('other', 'otherpass');
  await h.t.addVehicle('OTHERCAR', otherOwner, 'OTHERPASS');
  const { c: app } = await h.client('A');
  const { c: car } = await h.car();
  const { c: otherCar } = await h.car({ vehicleId: 'OTHERCAR', password: 'OTHERPASS' });
  assert.deepEqual(await app.next(), m('Z', '1'));
  car.send('g', 'fleet,from testcar');
  await roundTrip(car);
  otherCar.send('g', 'fleet,from othercar');
  await roundTrip(otherCar);

  await car.close();
  assert.deepEqual(await app.next(), m('Z', '0'), 'the server has seen the car leave');
  app.send('G', 'fleet');
  assert.deepEqual(await roundTrip(app), [m('g', 'OTHERCAR,FLEET,from othercar')]);

  await otherCar.close();
  const { c: watcher } = await h.client('A', { vehicleId: 'OTHERCAR', password: 'OTHERPASS' });
  assert.deepEqual(await roundTrip(watcher), []);
  watcher.send('G', 'fleet');
  assert.deepEqual(await roundTrip(watcher), [], 'the group is empty now');

  // the car comes back: subscribers hear from it again
  const { c: car2 } = await h.car();
  assert.deepEqual(await app.next(), m('Z', '1'));
  car2.send('g', 'fleet,back again');
  await roundTrip(car2);
  assert.deepEqual(await roundTrip(app), [m('g', 'TESTCAR,FLEET,back again')]);
  assert.deepEqual(await roundTrip(watcher), [m('g', 'TESTCAR,FLEET,back again')]);
});
