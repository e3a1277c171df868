/**
 * What happens right after a login (docs/protocol/mp.md §8, §13.3, §16): `Z0`/`Z1` and the replay of
 * stored car messages (F, S, then other codes ascending) followed by `T<secs>` for apps and batch
 * clients; `Z<n>` (the app count, batch clients excluded) for the car; a duplicate car login.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertRecentT, harness, m, roundTrip } from './helpers.js';

test('an app of a car that never connected gets Z0 and T3020399, then nothing', async (ctx) => {
  const h = await harness(ctx);
  const { c: app, initial } = await h.client('A');
  assert.deepEqual(initial, [m('Z', '0'), m('T', '3020399')]);
  assert.deepEqual(await roundTrip(app), []);
});

test('a batch client of a car that never connected gets Z0 and T3020399, then nothing', async (ctx) => {
  const h = await harness(ctx);
  const { c: batch, initial } = await h.client('B');
  assert.deepEqual(initial, [m('Z', '0'), m('T', '3020399')]);
  assert.deepEqual(await roundTrip(batch), []);
});

test('a car that connected but never sent data still reports T3020399', async (ctx) => {
  const h = await harness(ctx);
  const { c: car } = await h.car();
  await roundTrip(car);
  const { initial } = await h.client('A');
  assert.deepEqual(initial, [m('Z', '1'), m('T', '3020399')]);
});

test('T<secs> is the real age of the last car message, not clamped at 3020399 (docs/compatibility.md #8)', async (ctx) => {
  const h = await harness(ctx);
  const age = 4_000_000;
  const before = Math.floor(Date.now() / 1000);
  h.t.server.store.putCarMessage('TESTCAR', { code: 'S', data: 'old', time: before - age, paranoid: false, ptoken: '' });
  const { initial } = await h.client('A');
  const after = Math.floor(Date.now() / 1000);
  assert.deepEqual(initial.slice(0, -1), [m('Z', '0'), m('S', 'old')]);
  const t = initial.at(-1)!;
  assert.equal(t.code, 'T');
  assert.match(t.data, /^\d+$/);
  assert.ok(Number(t.data) >= age && Number(t.data) <= age + (after - before), `T${t.data} is the age ${age}`);
});

const SENT = [
  m('W', '206.8,20,206.8,21,210.3,22,210.3,23,1'),
  m('L', '51.5,-0.1,90,20,1,1,0,123,2,5.5,100,10,2,95'),
  m('Y', '4,fl,fr,rl,rr,4,206.8,206.8,210.3,210.3,-1'),
  m('S', '80,K,230,16,charging,standard,350,320'),
  m('D', '140,8,4,30,40,25,123,12345,0,0,20'),
  m('X', '1,2,3'),
  m('F', '3.3.003,VIN0123456789ABCD,5,0,TR,EU,1,ovms'),
  m('V', '2,CAP'),
];
/** F, S, then the other codes in ascending order. */
const REPLAY = ['F', 'S', 'D', 'L', 'V', 'W', 'X', 'Y'].map((code) => SENT.find((x) => x.code === code)!);

test('app login replays stored messages F, S, then the other codes ascending, then T<small>', async (ctx) => {
  const h = await harness(ctx);
  const { c: car } = await h.car();
  for (const msg of SENT) car.send(msg.code, msg.data);
  assert.deepEqual(await roundTrip(car), []);

  const { initial } = await h.client('A');
  assert.deepEqual(initial.slice(0, -1), [m('Z', '1'), ...REPLAY]);
  assertRecentT(initial.at(-1));

  // also while the car is offline: Z0, the same replay, T
  await car.close();
  const { initial: later } = await h.client('A');
  assert.deepEqual(later.slice(0, -1), [m('Z', '0'), ...REPLAY]);
  assertRecentT(later.at(-1));
});

test('batch login replays stored messages in the same order', async (ctx) => {
  const h = await harness(ctx);
  const { c: car } = await h.car();
  for (const msg of SENT) car.send(msg.code, msg.data);
  await roundTrip(car);
  const { c: batch, initial } = await h.client('B');
  assert.deepEqual(initial.slice(0, -1), [m('Z', '1'), ...REPLAY]);
  assertRecentT(initial.at(-1));
  assert.deepEqual(await roundTrip(batch), []);
});

test('the car gets Z<n> with the number of apps on every app login and logout; batch clients do not count', async (ctx) => {
  const h = await harness(ctx);
  const { c: car, initial } = await h.car();
  assert.deepEqual(initial, [m('Z', '0')]);

  const { c: app1 } = await h.client('A');
  assert.deepEqual(await roundTrip(car), [m('Z', '1')]);
  const { c: app2 } = await h.client('A');
  assert.deepEqual(await roundTrip(car), [m('Z', '2')]);
  const { c: batch } = await h.client('B');
  assert.deepEqual(await roundTrip(car), []);

  await app1.close();
  assert.deepEqual(await car.next(), m('Z', '1'));
  await batch.close();
  await app2.close();
  // the batch client left before app2, yet the car hears only about app2
  assert.deepEqual(await car.next(), m('Z', '0'));
  assert.deepEqual(await roundTrip(car), []);
});

test('a car login sends Z1 to the apps and batch clients and Z<apps> to the car; its logout sends Z0', async (ctx) => {
  const h = await harness(ctx);
  const { c: app1 } = await h.client('A');
  const { c: app2 } = await h.client('A');
  const { c: batch } = await h.client('B');

  const { c: car, initial } = await h.car();
  assert.deepEqual(initial, [m('Z', '2')]);
  assert.deepEqual(await roundTrip(car), []);
  for (const c of [app1, app2, batch]) assert.deepEqual(await roundTrip(c), [m('Z', '1')]);

  await car.close();
  for (const c of [app1, app2, batch]) assert.deepEqual(await c.next(), m('Z', '0'));
  for (const c of [app1, app2, batch]) assert.deepEqual(await roundTrip(c), []);
});

test('a duplicate car login closes the older car connection: clients get Z0 then Z1', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car1, initial: first } = await h.car();
  assert.deepEqual(first, [m('Z', '1')]);
  assert.deepEqual(await app.next(), m('Z', '1'));
  assert.deepEqual(await batch.next(), m('Z', '1'));

  const { c: car2, initial: second } = await h.car();
  assert.deepEqual(second, [m('Z', '1')]);
  const info = await car1.closed;
  assert.equal(info.byClient, false, 'the server closed the older car connection');

  for (const c of [app, batch]) assert.deepEqual(await roundTrip(c), [m('Z', '0'), m('Z', '1')]);

  // the new connection is the car now: its data reaches the clients
  car2.send('D', '1,2,3');
  assert.deepEqual(await roundTrip(car2), []);
  assert.deepEqual(await roundTrip(app), [m('D', '1,2,3'), m('T', '0')]);
  assert.deepEqual(await roundTrip(batch), [m('D', '1,2,3'), m('T', '0')]);
});
