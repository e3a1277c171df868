/**
 * Commands 30, 31 and 32, answered by the server itself (docs/protocol/mp.md §11.4, §17,
 * docs/compatibility.md #7): exact line formats, the `since` bound, the empty answers, traffic
 * accounting, and that these commands never reach the car.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MpClient } from '../../src/mp-client/mp-client.js';
import type { UtilisationRow } from '../../src/store/store.js';
import { harness, m, roundTrip, type MpMessage } from './helpers.js';

const VID = 'TESTCAR';

/** `YYYY-MM-DD HH:MM:SS` (UTC) of epoch seconds. */
const utc = (s: number): string => new Date(s * 1000).toISOString().replace('T', ' ').slice(0, 19);
const nowSec = (): number => Math.floor(Date.now() / 1000);

/** Reads a complete answer of a server command: lines `<fn>,0,<k>,<n>,…` up to k = n, or one `<fn>,1,…`. */
async function answer(c: MpClient): Promise<MpMessage[]> {
  const out: MpMessage[] = [];
  for (;;) {
    const msg = await c.next();
    out.push(msg);
    assert.equal(msg.code, 'c', `expected a c line, got ${JSON.stringify(msg)}`);
    const f = msg.data.split(',');
    if (f[1] !== '0' || f[2] === f[3]) return out;
  }
}

/** Sends the command and returns its whole answer. */
async function ask(c: MpClient, data: string): Promise<MpMessage[]> {
  c.send('C', data);
  return answer(c);
}

/** Reads `n` messages and returns them sorted (for acks whose relative order is not specified). */
async function nextN(c: MpClient, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let k = 0; k < n; k++) {
    const msg = await c.next();
    out.push(msg.code + msg.data);
  }
  return out.sort();
}

test('C31 summarises the history per record type, C32 lists the records of a type', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: app2 } = await h.client('A');
  const { c: car } = await h.car();
  await roundTrip(app);
  await roundTrip(app2);

  const t0 = nowSec();
  car.send('H', '*-LOG-Test,0,86400,hello,world');
  car.send('H', '*-LOG-Test,1,86400,second');
  car.send('h', '7,-100,*-LOG-Test,0,86400,older');
  car.send('h', '8,0,*-LOG-Trip,5,86400,delayed,record');
  car.send('S', '80,K,230');
  car.send('D', '1,2,3');
  assert.deepEqual(await nextN(car, 2), ['h7', 'h8']);
  assert.deepEqual(await roundTrip(car), []);
  const t1 = nowSec();
  for (const c of [app, app2]) {
    assert.deepEqual(await roundTrip(c), [m('S', '80,K,230'), m('T', '0'), m('D', '1,2,3'), m('T', '0')]);
  }

  // the record times as stored (each within the time of sending, the `older` one 100 s before)
  const store = h.t.server.store;
  const times = async (type: string) => (await store.getHistorical(VID, type, -1)).map((r) => r.time);
  const [older, hello, second] = (await times('*-LOG-Test')) as [number, number, number];
  const [trip] = (await times('*-LOG-Trip')) as [number];
  const [s] = (await times('S')) as [number];
  const [d] = (await times('D')) as [number];
  for (const x of [hello, second, trip, s, d]) assert.ok(x >= t0 && x <= t1, `record time ${x} within [${t0}, ${t1}]`);
  assert.ok(older >= t0 - 100 && older <= t1 - 100);
  assert.ok(hello <= second);

  // size = Σ len(type) + len(data) + len(vehicleid) + 20
  const size = (type: string, ...data: string[]) => data.reduce((n, x) => n + type.length + x.length + VID.length + 20, 0);
  assert.deepEqual(await ask(app, '31'), [
    m('c', `31,0,1,4,*-LOG-Test,2,3,${size('*-LOG-Test', 'hello,world', 'second', 'older')},${utc(older)},${utc(second)}`),
    m('c', `31,0,2,4,*-LOG-Trip,1,1,${size('*-LOG-Trip', 'delayed,record')},${utc(trip)},${utc(trip)}`),
    m('c', `31,0,3,4,D,1,1,${size('D', '1,2,3')},${utc(d)},${utc(d)}`),
    m('c', `31,0,4,4,S,1,1,${size('S', '80,K,230')},${utc(s)},${utc(s)}`),
  ]);
  assert.equal(size('*-LOG-Test', 'hello,world', 'second', 'older'), 133);

  // since is exclusive: records at exactly `since` are left out
  assert.deepEqual(await ask(app, `31,${utc(older)}`), [
    m('c', `31,0,1,4,*-LOG-Test,2,2,${size('*-LOG-Test', 'hello,world', 'second')},${utc(hello)},${utc(second)}`),
    m('c', `31,0,2,4,*-LOG-Trip,1,1,${size('*-LOG-Trip', 'delayed,record')},${utc(trip)},${utc(trip)}`),
    m('c', `31,0,3,4,D,1,1,${size('D', '1,2,3')},${utc(d)},${utc(d)}`),
    m('c', `31,0,4,4,S,1,1,${size('S', '80,K,230')},${utc(s)},${utc(s)}`),
  ]);
  assert.deepEqual(await ask(app, '31,2100-01-01'), [m('c', '31,1,No historical data available')]);

  // C32: by time, then record number; the data may contain commas
  assert.deepEqual(await ask(app, '32,*-LOG-Test'), [
    m('c', `32,0,1,3,*-LOG-Test,${utc(older)},0,older`),
    m('c', `32,0,2,3,*-LOG-Test,${utc(hello)},0,hello,world`),
    m('c', `32,0,3,3,*-LOG-Test,${utc(second)},1,second`),
  ]);
  assert.deepEqual(await ask(app, `32,*-LOG-Test,${utc(older)}`), [
    m('c', `32,0,1,2,*-LOG-Test,${utc(hello)},0,hello,world`),
    m('c', `32,0,2,2,*-LOG-Test,${utc(second)},1,second`),
  ]);
  assert.deepEqual(await ask(app, '32,S'), [m('c', `32,0,1,1,S,${utc(s)},0,80,K,230`)]);
  assert.deepEqual(await ask(app, '32,*-LOG-Trip,0000-00-00'), [
    m('c', `32,0,1,1,*-LOG-Trip,${utc(trip)},5,delayed,record`),
  ]);
  assert.deepEqual(await ask(app, '32,NOPE'), [m('c', '32,1,No historical data available')]);
  assert.deepEqual(await ask(app, '32'), [m('c', '32,1,No historical data available')]);
  assert.deepEqual(await ask(app, '32,S,2100-01-01'), [m('c', '32,1,No historical data available')]);

  // only the requester got answers, and the car nothing
  assert.deepEqual(await roundTrip(app), []);
  assert.deepEqual(await roundTrip(app2), []);
  assert.deepEqual(await roundTrip(car), []);
});

test('empty answers: c30,1 / c31,1 / c32,1, also while the car is offline', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');
  for (const c of [app, batch]) {
    assert.deepEqual(await ask(c, '30'), [m('c', '30,1,No GPRS utilisation data available')]);
    assert.deepEqual(await ask(c, '31'), [m('c', '31,1,No historical data available')]);
    assert.deepEqual(await ask(c, '32,S'), [m('c', '32,1,No historical data available')]);
  }
  assert.deepEqual(await roundTrip(app), []);
  assert.deepEqual(await roundTrip(batch), []);
});

test('C30, C31 and C32 are never forwarded to the car (app and batch client)', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  await roundTrip(app);
  await roundTrip(batch);
  car.send('S', '80,K,230');
  await roundTrip(car);
  await roundTrip(app);
  await roundTrip(batch);

  for (const c of [app, batch]) {
    assert.deepEqual(await ask(c, '30'), [m('c', '30,1,No GPRS utilisation data available')]);
    const [line] = await ask(c, '31');
    assert.match(line!.data, /^31,0,1,1,S,1,1,36,/);
    const [rec] = await ask(c, '32,S,1970-01-01');
    assert.match(rec!.data, /^32,0,1,1,S,\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,0,80,K,230$/);
  }
  assert.deepEqual(await roundTrip(car), [], 'the car saw none of these commands');
  // a command that is not a server command does reach it
  app.send('C', '33');
  assert.deepEqual(await car.next(), m('C', '33'));
});

test('C30 reports the bytes of the car and of the apps per UTC day (batch clients not counted)', async (ctx) => {
  const h = await harness(ctx, { housekeepingMs: 200 });
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  await roundTrip(app);
  await roundTrip(batch);

  car.send('S', '80,K,230,16,charging,standard,350,320,16,123,0,5.5,3,1,0,0,0,0,160,60,30,400,90');
  car.send('D', '140,8,4,30,40,25,123,12345,0,0,20,2,1,1,12.5,4,12.6,16,35,1.2,21');
  car.send('h', '1,0,*-LOG-Test,0,86400,x');
  assert.deepEqual(await car.next(), m('h', '1'));
  assert.deepEqual(await roundTrip(car), []);
  await roundTrip(app);
  await roundTrip(batch);
  // lots of batch traffic: if it were counted as app traffic, the app numbers would be too big
  for (let k = 0; k < 50; k++) batch.send('A', 'some padding to make the batch traffic large');
  for (let k = 0; k < 50; k++) assert.deepEqual(await batch.next(), m('a', ''));

  // the car's totals are final once it has left; the client counted the same bytes (+2 per line)
  await car.close();
  assert.deepEqual(await app.next(), m('Z', '0'));
  const carRx = car.stats.bytesReceived; // bytes the server sent to the car
  const carTx = car.stats.bytesSent;
  assert.ok(carRx > 0 && carTx > 0);
  let rows: UtilisationRow[] = [];
  const deadline = Date.now() + 5000;
  for (;;) {
    rows = await h.t.server.store.getUtilisation(VID, 0);
    const c = rows.find((r) => r.clientType === 'C');
    const a = rows.find((r) => r.clientType === 'A');
    if ((c && c.tx === carRx && c.rx === carTx && a && a.rx > 0) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(
    rows.filter((r) => r.clientType === 'C').map((r) => [r.rx, r.tx]),
    [[carTx, carRx]],
    'the car traffic was flushed to the store',
  );

  const [line, ...more] = await ask(app, '30');
  assert.deepEqual(more, []);
  const today = new Date().toISOString().slice(0, 10);
  const f = /^30,0,1,1,(\d{4}-\d\d-\d\d),(\d+),(\d+),(\d+),(\d+)$/.exec(line!.data);
  assert.ok(f, `unexpected C30 line ${JSON.stringify(line)}`);
  assert.equal(f[1], today);
  assert.equal(Number(f[2]), carRx, 'car rx = bytes the server sent to the car');
  assert.equal(Number(f[3]), carTx, 'car tx = bytes the server received from the car');
  const appRx = Number(f[4]);
  const appTx = Number(f[5]);
  assert.ok(appRx > 0 && appRx <= app.stats.bytesReceived, `app rx ${appRx} ≤ ${app.stats.bytesReceived}`);
  assert.ok(appTx > 0 && appTx <= app.stats.bytesSent, `app tx ${appTx} ≤ ${app.stats.bytesSent}`);

  // the same counters appear as four *-OVM-Utilisation history records of the day
  const util = await ask(app, '32,*-OVM-Utilisation');
  assert.equal(util.length, 4);
  const midnight = `${today} 00:00:00`;
  assert.deepEqual(util[0], m('c', `32,0,1,4,*-OVM-Utilisation,${midnight},0,${carRx}`));
  assert.deepEqual(util[1], m('c', `32,0,2,4,*-OVM-Utilisation,${midnight},1,${carTx}`));
  assert.match(util[2]!.data, new RegExp(`^32,0,3,4,\\*-OVM-Utilisation,${midnight},2,[1-9]\\d*$`));
  assert.match(util[3]!.data, new RegExp(`^32,0,4,4,\\*-OVM-Utilisation,${midnight},3,[1-9]\\d*$`));
});
