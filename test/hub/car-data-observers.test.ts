/**
 * The car-data observers (src/hub/observers/car-data-observers.ts), with a real server and a real
 * MP car: an observer hears each record once it is committed (it looks at the SQLite file through
 * a second connection at the moment it is called), after the vehicle's clients got it; a
 * paranoid record is not passed on; an observer that throws or rejects is logged and disturbs
 * neither the forwarding, nor the other observers, nor the car’s connection; of a burst of records
 * of one code in one second, committed together while no client watches, it hears the last (and
 * the link keeps none of them once they are told).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { CarDataEvent } from '../../src/hub/hub.js';
import { eventually, harness, m, roundTrip } from '../mp/helpers.js';
import { SQLITE_ONLY } from '../support/postgres.js';


test('an observer hears each record after its commit, with who sent it and when', { skip: SQLITE_ONLY }, async (ctx) => {
  // a long write-behind delay: a record not yet committed would not be in the file
  const h = await harness(ctx, { writeBehindMs: 3000 });
  const db = new Database(join(h.t.dataDir, 'vts.sqlite'), { readonly: true, fileMustExist: true });
  ctx.after(() => db.close());
  const stored = db.prepare<[string, string], { data: string }>('SELECT data FROM car_messages WHERE vehicle_id = ? AND code = ?');

  const heard: { event: CarDataEvent; committed: string | undefined }[] = [];
  const stop = h.t.server.hub.onCarData((event) => {
    heard.push({ event, committed: stored.get(event.vehicleId, event.code)?.data });
  });
  const { c: app } = await h.client('A');
  const { c: car } = await h.car();
  assert.deepEqual(await app.next(), m('Z', '1'));

  const before = Math.floor(Date.now() / 1000);
  car.send('S', '80,K,230,16,charging,performance,,');
  car.send('D', '140,8,4');
  assert.deepEqual(await roundTrip(app), [m('S', '80,K,230,16,charging,performance,'), m('T', '0'), m('D', '140,8,4'), m('T', '0')]);
  await eventually(() => (heard.length >= 2 ? true : undefined), 'the observer to hear both records');
  const after = Math.floor(Date.now() / 1000);

  assert.deepEqual(
    heard.map(({ event, committed }) => [event.vehicleId, event.ownerId, event.code, event.data, event.source, committed]),
    [
      ['TESTCAR', h.ownerId, 'S', '80,K,230,16,charging,performance,', 'v2', '80,K,230,16,charging,performance,'],
      ['TESTCAR', h.ownerId, 'D', '140,8,4', 'v2', '140,8,4'],
    ],
    'each record is in the file when the observer hears it (the status record as repaired and stored)',
  );
  for (const { event } of heard) assert.ok(event.time >= before && event.time <= after, `time ${event.time}`);

  // a paranoid record is opaque: stored and forwarded, not observed
  car.send('E', 'T' + 'a1b2c3');
  car.send('E', 'MS' + 'opaque-payload');
  car.send('L', '51.5,-0.1');
  await roundTrip(app);
  await eventually(() => (heard.length >= 3 ? true : undefined), 'the observer to hear L');
  assert.deepEqual(
    heard.slice(2).map(({ event }) => event.code),
    ['L'],
  );
  assert.equal(stored.get('TESTCAR', 'S')?.data, 'opaque-payload', 'the paranoid record was stored all the same');

  stop();
  car.send('D', '141,8,4');
  await roundTrip(app);
  await roundTrip(car);
  assert.equal(heard.length, 3, 'a removed observer hears nothing more');
});

test('an observer that throws or rejects is logged and disturbs nothing', async (ctx) => {
  const h = await harness(ctx);
  const hub = h.t.server.hub;
  const heard: string[] = [];
  hub.onCarData(() => {
    throw new Error('observer bug');
  });
  hub.onCarData(async () => {
    throw new Error('observer async bug');
  });
  hub.onCarData((e) => void heard.push(`${e.code}${e.data}`));
  const { c: app } = await h.client('A');
  const { c: car } = await h.car();
  assert.deepEqual(await app.next(), m('Z', '1'));

  car.send('D', '1,2,3');
  car.send('L', '51.5,-0.1');
  assert.deepEqual(await roundTrip(car), [], 'the car keeps its connection and its pongs');
  assert.deepEqual(await roundTrip(app), [m('D', '1,2,3'), m('T', '0'), m('L', '51.5,-0.1'), m('T', '0')]);
  await eventually(() => (heard.length >= 2 ? true : undefined), 'the good observer to hear both records');
  assert.deepEqual(heard, ['D1,2,3', 'L51.5,-0.1'], 'the observer after the failing ones hears every record');

  const failures = await eventually(() => {
    const lines = h.t.logs.filter((l) => l.includes('a car-data observer failed'));
    return lines.length >= 4 ? lines : undefined;
  }, 'the four failures to be logged');
  assert.ok(failures.some((l) => l.includes('observer bug')) && failures.some((l) => l.includes('observer async bug')));
  assert.ok(failures.every((l) => JSON.parse(l).vehicle === 'TESTCAR'));

  const stored = await h.t.server.store.getCarMessages('TESTCAR');
  assert.deepEqual(stored.map((s) => `${s.code}${s.data}`).sort(), ['D1,2,3', 'L51.5,-0.1']);
});

test('of the records of one code in one second committed together while no client watches, an observer hears the last', async (ctx) => {
  const clock = { ms: 1_780_000_000_000 };
  const h = await harness(ctx, { writeBehindMs: 60_000, clock: () => clock.ms });
  const heard: string[] = [];
  ctx.after(h.t.server.hub.onCarData((e) => void heard.push(`${e.time - 1_780_000_000} ${e.code} ${e.data}`)));
  const { c: car } = await h.car();
  const store = h.t.server.store;

  // nobody else watches the car
  for (const soc of [80, 81, 82]) car.send('S', `${soc},K`);
  car.send('D', '140,8,4');
  await roundTrip(car);
  clock.ms += 1000;
  car.send('S', '83,K');
  await roundTrip(car);
  await store.flush();
  assert.deepEqual(heard, ['0 S 82,K', '0 D 140,8,4', '1 S 83,K']);
  // told records leave the vehicle's link: a parked car holds none between its messages
  assert.equal(h.t.server.hub.links.get('TESTCAR')?.heard, undefined);

  // a record of the same second after the commit: heard again
  heard.length = 0;
  car.send('S', '86,K');
  await roundTrip(car);
  await store.flush();
  car.send('S', '87,K');
  car.send('S', '88,K');
  await roundTrip(car);
  await store.flush();
  assert.deepEqual(heard, ['1 S 86,K', '1 S 88,K']);

  // an app watches: it gets every record, and so does the observer, after it
  heard.length = 0;
  const { c: app } = await h.client('A');
  await roundTrip(app); // what an app gets at login
  car.send('S', '84,K');
  car.send('S', '85,K');
  assert.deepEqual(await roundTrip(app), [m('S', '84,K'), m('T', '0'), m('S', '85,K'), m('T', '0')]);
  await store.flush();
  assert.deepEqual(heard, ['1 S 84,K', '1 S 85,K']);
});
