/**
 * Store-and-forward of car messages and the rest of the dispatch table (docs/protocol/mp.md §9, §9.1):
 * car data goes to every app and batch client followed by `T0` (`F` also by `f<version>`), only
 * the latest message per code is kept, `,performance,,` is repaired in `S`, `P` goes without `T`,
 * other messages from apps go to the car, and batch clients cannot send anything but commands
 * and pings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SERVER_VERSION } from '../../src/util/version.js';
import { assertRecentT, harness, m, roundTrip } from './helpers.js';

test('car data messages are forwarded to every app and batch client, each followed by T0', async (ctx) => {
  const h = await harness(ctx);
  const { c: app1 } = await h.client('A');
  const { c: app2 } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  for (const c of [app1, app2, batch]) assert.deepEqual(await c.next(), m('Z', '1'));

  const d = '140,8,4,30,40,25,123,12345,0,0,20,2,1,1,12.5,4,12.6,16,35,1.2,21';
  const l = '51.5,-0.1,90,20,1,1,0,123,2,5.5,100,10,2,95';
  car.send('D', d);
  car.send('L', l);
  car.send('k', 'an unknown code is stored and forwarded too');
  assert.deepEqual(await roundTrip(car), [], 'nothing comes back to the car');
  for (const c of [app1, app2, batch]) {
    assert.deepEqual(await roundTrip(c), [
      m('D', d),
      m('T', '0'),
      m('L', l),
      m('T', '0'),
      m('k', 'an unknown code is stored and forwarded too'),
      m('T', '0'),
    ]);
  }
});

test('F is followed by f<server version> and T0', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  await roundTrip(app);
  await roundTrip(batch);

  const f = '3.3.003,VIN0123456789ABCD,5,0,TR,EU,1,ovms';
  car.send('F', f);
  await roundTrip(car);
  assert.match(SERVER_VERSION, /^vts-\d+\.\d+\.\d+/); // docs/compatibility.md #15
  for (const c of [app, batch]) assert.deepEqual(await roundTrip(c), [m('F', f), m('f', SERVER_VERSION), m('T', '0')]);
});

test('only the latest message of each code is stored: a second S replaces the first', async (ctx) => {
  const h = await harness(ctx);
  const { c: car } = await h.car();
  car.send('S', '80,K,230,16,charging');
  car.send('D', '1,2,3');
  car.send('S', '81,K,230,16,charging');
  await roundTrip(car);

  const { initial } = await h.client('A');
  assert.deepEqual(initial.slice(0, -1), [m('Z', '1'), m('S', '81,K,230,16,charging'), m('D', '1,2,3')]);
  assertRecentT(initial.at(-1));
  const stored = await h.t.server.store.getCarMessages('TESTCAR');
  assert.deepEqual(stored.map((x) => [x.code, x.data]).sort(), [
    ['D', '1,2,3'],
    ['S', '81,K,230,16,charging'],
  ]);
});

test('the first ",performance,," of an S becomes ",performance," in the forwarded and the stored copy', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: car } = await h.car();
  await roundTrip(app);

  car.send('S', '80,K,performance,,230,performance,,16');
  car.send('D', '1,performance,,2'); // only S is repaired
  await roundTrip(car);
  assert.deepEqual(await roundTrip(app), [
    m('S', '80,K,performance,230,performance,,16'),
    m('T', '0'),
    m('D', '1,performance,,2'),
    m('T', '0'),
  ]);
  const { initial } = await h.client('A');
  assert.deepEqual(initial.slice(0, -1), [
    m('Z', '1'),
    m('S', '80,K,performance,230,performance,,16'),
    m('D', '1,performance,,2'),
  ]);
});

test('P from the car is forwarded to all clients without T and is not stored', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  await roundTrip(app);
  await roundTrip(batch);

  car.send('P', 'AIt is a push alert');
  car.send('P', 'IInfo, with a comma');
  await roundTrip(car);
  for (const c of [app, batch]) {
    assert.deepEqual(await roundTrip(c), [m('P', 'AIt is a push alert'), m('P', 'IInfo, with a comma')]);
  }
  const { initial } = await h.client('A');
  assert.deepEqual(initial, [m('Z', '1'), m('T', '3020399')], 'P is neither replayed nor an update of the car');
});

test('messages from an app other than the handled codes go to the car unchanged and nowhere else', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: other } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  for (const c of [app, other, batch]) await roundTrip(c);

  const sent = [m('X', 'foo,bar'), m('S', '1,2,3'), m('M', ''), m('Z', '5'), m('T', '0'), m('f', 'x')];
  for (const msg of sent) app.send(msg.code, msg.data);
  assert.deepEqual(await roundTrip(app), [], 'no reply to the app');
  assert.deepEqual(await roundTrip(car), sent);
  assert.deepEqual(await roundTrip(other), []);
  assert.deepEqual(await roundTrip(batch), []);
  assert.deepEqual(await h.t.server.store.getCarMessages('TESTCAR'), [], 'nothing is stored');
});

test('car-only messages from an app (c, g, H, h) are not forwarded to the car', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: car } = await h.car();
  await roundTrip(app);

  app.send('c', '1,0,0,1,x');
  app.send('g', 'group1,data');
  app.send('H', '*-LOG-App,0,86400,x');
  app.send('h', '5,0,*-LOG-App,0,86400,x');
  assert.deepEqual(await roundTrip(app), []);
  assert.deepEqual(await roundTrip(car), []);
});

test('an app message for a car that is offline is dropped', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  app.send('X', 'foo');
  assert.deepEqual(await roundTrip(app), []);
  const { c: car, initial } = await h.car();
  assert.deepEqual(initial, [m('Z', '1')]);
  assert.deepEqual(await roundTrip(car), [], 'the message is not kept for the car');
});

test('messages from a batch client other than commands and pings go nowhere', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  await roundTrip(app);
  await roundTrip(batch);

  for (const [code, data] of [
    ['X', 'foo'],
    ['S', '1,2,3'],
    ['D', '4,5,6'],
    ['c', '1,0,0,1,x'],
    ['H', '*-LOG-Batch,0,86400,x'],
    ['h', '5,0,*-LOG-Batch,0,86400,x'],
    ['g', 'group1,data'],
    ['Z', '3'],
  ] as const) {
    batch.send(code, data);
  }
  assert.deepEqual(await roundTrip(batch), []);
  assert.deepEqual(await roundTrip(car), []);
  assert.deepEqual(await roundTrip(app), []);
  assert.deepEqual(await h.t.server.store.getCarMessages('TESTCAR'), []);
  assert.deepEqual(await h.t.server.store.summarizeHistorical('TESTCAR', -1), []);
});

test('A is answered a (empty data) for a car, an app and a batch client; a is ignored', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  await roundTrip(app);
  await roundTrip(batch);
  for (const c of [car, app, batch]) {
    c.send('A');
    assert.deepEqual(await c.next(), m('a', ''));
    c.send('a');
    c.send('A', 'FA'); // a ping's payload is meaningless
    assert.deepEqual(await c.next(), m('a', ''));
  }
  for (const c of [car, app, batch]) assert.deepEqual(await roundTrip(c), []);
});
