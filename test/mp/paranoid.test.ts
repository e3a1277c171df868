/**
 * Paranoid mode (docs/protocol/mp.md §10, §8.1 step 4, docs/compatibility.md #1, #9, #10): `ET` and `EM`
 * messages are relayed opaquely; `EM<code>` is stored under its code; the login replay sends
 * `ET<token>` once before the first paranoid row; a new token invalidates the paranoid rows of the
 * old one; `EMC` commands reach the car and `EMc` answers go back to the requester; `ET` from an
 * app is ignored.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertRecentT, eventually, harness, m, roundTrip } from './helpers.js';

const VID = 'TESTCAR';

test('ET<token> is forwarded to all clients without T', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  await roundTrip(app);
  await roundTrip(batch);

  car.send('E', 'Tptok12345');
  assert.deepEqual(await roundTrip(car), []);
  for (const c of [app, batch]) assert.deepEqual(await roundTrip(c), [m('E', 'Tptok12345')]);
  const v = await h.t.server.store.getVehicle(VID);
  assert.equal(v?.paranoidToken, 'ptok12345');
});

test('EM<code><payload> is stored under its code and forwarded as it came, then T0', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  await roundTrip(app);
  await roundTrip(batch);

  car.send('E', 'Tptok12345');
  car.send('E', 'MSparanoid-payload');
  await roundTrip(car);
  for (const c of [app, batch]) {
    assert.deepEqual(await roundTrip(c), [m('E', 'Tptok12345'), m('E', 'MSparanoid-payload'), m('T', '0')]);
  }
  const stored = await h.t.server.store.getCarMessages(VID);
  assert.deepEqual(
    stored.map(({ code, data, paranoid, ptoken, valid }) => ({ code, data, paranoid, ptoken, valid })),
    [{ code: 'S', data: 'paranoid-payload', paranoid: true, ptoken: 'ptok12345', valid: true }],
  );
});

test('app login after paranoid messages: ET<token> once before the first paranoid row (transcript)', async (ctx) => {
  const h = await harness(ctx);
  const { c: car } = await h.car();
  const f = '3.3.003,VIN0123456789ABCD,5,0,TR,EU,1,ovms';
  const d = '140,8,4,30,40,25,123,12345,0,0,20,2,1,1,12.5,4,12.6,16,35,1.2,21';
  const l = '51.5,-0.1,90,20,1,1,0,123,2,5.5,100,10,2,95';
  const w = '206.8,20,206.8,21,210.3,22,210.3,23,1';
  car.send('F', f);
  car.send('S', '80,K,230,16,charging');
  car.send('D', d);
  car.send('L', l);
  car.send('W', w);
  car.send('E', 'Tptok12345');
  car.send('E', 'MSparanoid-payload');
  await roundTrip(car);

  const { initial } = await h.client('A');
  assert.deepEqual(initial.slice(0, -1), [
    m('Z', '1'),
    m('F', f),
    m('E', 'Tptok12345'),
    m('E', 'MSparanoid-payload'),
    m('D', d),
    m('L', l),
    m('W', w),
  ]);
  assertRecentT(initial.at(-1));

  // several paranoid rows: still one ET, before the first of them
  car.send('E', 'MLparanoid-location');
  car.send('E', 'MWparanoid-tpms');
  await roundTrip(car);
  const { initial: later } = await h.client('B');
  assert.deepEqual(later.slice(0, -1), [
    m('Z', '1'),
    m('F', f),
    m('E', 'Tptok12345'),
    m('E', 'MSparanoid-payload'),
    m('D', d),
    m('E', 'MLparanoid-location'),
    m('E', 'MWparanoid-tpms'),
  ]);
});

test('a new ET token invalidates the stored paranoid rows of the old token; plain rows stay', async (ctx) => {
  const h = await harness(ctx);
  const { c: car } = await h.car();
  const store = h.t.server.store;
  car.send('E', 'Ttok1');
  car.send('E', 'MSpayload-s1');
  car.send('E', 'MLpayload-l1');
  car.send('W', 'plain,w'); // plain, stored while tok1 is in force
  await roundTrip(car);
  // (a new token moments after the previous one is the next test)
  await eventually(async () => ((await store.getVehicle(VID))?.paranoidToken === 'tok1' ? true : undefined), 'tok1');
  car.send('E', 'Ttok2');
  car.send('E', 'MDpayload-d2');
  await roundTrip(car);

  await store.flush();
  const all = await store.getCarMessages(VID, true);
  assert.deepEqual(
    all
      .map(({ code, paranoid, ptoken, valid }) => ({ code, paranoid, ptoken, valid }))
      .sort((a, b) => a.code.localeCompare(b.code)),
    [
      { code: 'D', paranoid: true, ptoken: 'tok2', valid: true },
      { code: 'L', paranoid: true, ptoken: 'tok1', valid: false },
      { code: 'S', paranoid: true, ptoken: 'tok1', valid: false },
      { code: 'W', paranoid: false, ptoken: 'tok1', valid: true },
    ],
  );

  const { initial } = await h.client('A');
  assert.deepEqual(initial.slice(0, -1), [m('Z', '1'), m('E', 'Ttok2'), m('E', 'MDpayload-d2'), m('W', 'plain,w')]);
  assertRecentT(initial.at(-1));

  // a later plain S replaces the invalid paranoid one and is replayed again
  car.send('S', '56,K,0,0,stopped');
  await roundTrip(car);
  const { initial: later } = await h.client('A');
  assert.deepEqual(later.slice(0, -1), [
    m('Z', '1'),
    m('S', '56,K,0,0,stopped'),
    m('E', 'Ttok2'),
    m('E', 'MDpayload-d2'),
    m('W', 'plain,w'),
  ]);
});

test(
  'messages after a second ET sent right after the first stay valid',
  async (ctx) => {
    const h = await harness(ctx);
    const { c: car } = await h.car();
    car.send('E', 'Ttok1');
    car.send('E', 'MSpayload-s1');
    car.send('E', 'Ttok2');
    car.send('E', 'MDpayload-d2');
    await roundTrip(car);

    const { initial } = await h.client('A');
    assert.deepEqual(initial.slice(0, -1), [m('Z', '1'), m('E', 'Ttok2'), m('E', 'MDpayload-d2')]);
    const v = await h.t.server.store.getVehicle(VID);
    assert.equal(v?.paranoidToken, 'tok2');
  },
);

test("EMC from an app goes to the car and the car's EMc answer back to that app only", async (ctx) => {
  const h = await harness(ctx);
  const { c: app1 } = await h.client('A');
  const { c: app2 } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  for (const c of [app1, app2, batch]) await roundTrip(c);

  // one command at a time (the command service's queue): each goes to the car once the one
  // before it is answered, and its answer (one line: the function is encrypted) to its sender
  app1.send('E', 'MCencrypted-command');
  assert.deepEqual(await car.next(), m('E', 'MCencrypted-command'));
  batch.send('E', 'MCbatch-command');
  // a paranoid 31 is not a server command: the server cannot read it
  app2.send('E', 'MC31');
  assert.deepEqual(await roundTrip(car), [], 'queued behind the first');

  car.send('E', 'Mcencrypted-answer-1');
  assert.deepEqual(await car.next(), m('E', 'MCbatch-command'));
  car.send('E', 'Mcencrypted-answer-2');
  assert.deepEqual(await car.next(), m('E', 'MC31'));
  car.send('E', 'Mcencrypted-answer-3');
  await roundTrip(car);
  assert.deepEqual(await roundTrip(app1), [m('E', 'Mcencrypted-answer-1')]);
  assert.deepEqual(await roundTrip(batch), [m('E', 'Mcencrypted-answer-2')]);
  assert.deepEqual(await roundTrip(app2), [m('E', 'Mcencrypted-answer-3')]);
  assert.deepEqual(await h.t.server.store.getCarMessages(VID), [], 'answers are not stored');
});

test('other paranoid messages from an app go to the car; a paranoid command for an offline car is dropped', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  app.send('E', 'MCencrypted-command');
  assert.deepEqual(await roundTrip(app), [], 'no "Vehicle not connected": the function number is encrypted');

  const { c: car } = await h.car();
  assert.deepEqual(await roundTrip(car), []);
  await roundTrip(app);
  app.send('E', 'MXsomething');
  assert.deepEqual(await car.next(), m('E', 'MXsomething'));
  assert.deepEqual(await roundTrip(app), []);
});

test('ET from an app or a batch client is ignored', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  await roundTrip(app);
  await roundTrip(batch);
  car.send('E', 'Tcartoken');
  car.send('E', 'MSpayload');
  await roundTrip(car);
  await roundTrip(app);
  await roundTrip(batch);

  app.send('E', 'Tevil-app-token');
  batch.send('E', 'Tevil-batch-token');
  assert.deepEqual(await roundTrip(app), []);
  assert.deepEqual(await roundTrip(batch), []);
  assert.deepEqual(await roundTrip(car), [], 'not forwarded to the car');

  const v = await h.t.server.store.getVehicle(VID);
  assert.equal(v?.paranoidToken, 'cartoken');
  const { initial } = await h.client('A');
  assert.deepEqual(initial.slice(0, -1), [m('Z', '1'), m('E', 'Tcartoken'), m('E', 'MSpayload')]);
});
