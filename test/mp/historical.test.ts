/**
 * Historical records from the car (docs/protocol/mp.md §15, docs/compatibility.md #6): `h<ack>,…` is
 * acknowledged `h<ack>` only once the record is durable in the SQLite file; `H` is stored and never
 * acknowledged; a malformed `h` is still acknowledged; records from apps and batch clients are
 * ignored; the record time is now + timediff and it expires lifetime seconds after that.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { MpMessage } from '../../src/mp-client/mp-client.js';
import { SQLITE_ONLY } from '../support/postgres.js';
import { harness, m, roundTrip } from './helpers.js';

const VID = 'TESTCAR';
const nowSec = (): number => Math.floor(Date.now() / 1000);

interface Row {
  type: string;
  record_number: number;
  time: number;
  data: string;
  expires: number;
}

test('an h record is durable in the SQLite file when its ack arrives', { skip: SQLITE_ONLY }, async (ctx) => {
  // a long write-behind delay: a buffered (non-durable) write would not be in the file yet
  const h = await harness(ctx, { writeBehindMs: 3000 });
  const { c: car } = await h.car();
  const db = new Database(join(h.t.dataDir, 'vts.sqlite'), { readonly: true, fileMustExist: true });
  ctx.after(() => db.close());
  const query = db.prepare<[string, string, number], Row>(
    'SELECT type, record_number, time, data, expires FROM historical WHERE vehicle_id = ? AND type = ? AND record_number = ?',
  );

  // looked up in the file at the very moment each ack is decoded
  const seen = new Map<string, Row | undefined>();
  const onMessage = (msg: MpMessage): void => {
    if (msg.code === 'h') seen.set(msg.data, query.get(VID, '*-LOG-Trip', Number(msg.data)));
  };
  car.on('message', onMessage);

  const t0 = nowSec();
  for (let k = 1; k <= 5; k++) car.send('h', `${k},0,*-LOG-Trip,${k},86400,trip ${k},with,commas`);
  const acks: MpMessage[] = [];
  for (let k = 1; k <= 5; k++) acks.push(await car.next());
  const t1 = nowSec();
  car.off('message', onMessage);

  assert.deepEqual(
    acks.map((a) => a.data).sort(),
    ['1', '2', '3', '4', '5'],
  );
  for (const a of acks) assert.equal(a.code, 'h');
  for (let k = 1; k <= 5; k++) {
    const row = seen.get(String(k));
    assert.ok(row, `record ${k} was not in the database file when its ack h${k} arrived`);
    assert.equal(row.data, `trip ${k},with,commas`);
    assert.ok(row.time >= t0 && row.time <= t1);
    assert.equal(row.expires, row.time + 86400);
  }
  assert.deepEqual(await roundTrip(car), []);
});

test('an H record is stored and never acknowledged', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: car } = await h.car();
  await roundTrip(app);

  const t0 = nowSec();
  car.send('H', '*-LOG-Test,0,86400,hello,world');
  car.send('H', '*-LOG-Test,1,3600,second');
  assert.deepEqual(await roundTrip(car), [], 'no ack for H');
  const t1 = nowSec();
  assert.deepEqual(await roundTrip(app), [], 'records are not forwarded to clients');

  const rows = await h.t.server.store.getHistorical(VID, '*-LOG-Test', -1);
  assert.deepEqual(
    rows.map((r) => [r.recordNumber, r.data, r.expires - r.time]),
    [
      [0, 'hello,world', 86400],
      [1, 'second', 3600],
    ],
  );
  for (const r of rows) assert.ok(r.time >= t0 && r.time <= t1);
  // and it does not count as a car update
  const { initial } = await h.client('A');
  assert.deepEqual(initial, [m('Z', '1'), m('T', '3020399')]);
});

test('a malformed h is still acknowledged (and not stored); a malformed H gets nothing', async (ctx) => {
  const h = await harness(ctx);
  const { c: car } = await h.car();

  car.send('h', '9,notanumber');
  assert.deepEqual(await car.next(), m('h', '9'));
  car.send('h', '10');
  assert.deepEqual(await car.next(), m('h', '10'));
  car.send('h', '11,0,*-LOG-Bad,notanumber,86400,data');
  assert.deepEqual(await car.next(), m('h', '11'));
  car.send('h', '12,0,*-LOG-Bad,0,86400'); // no data field
  assert.deepEqual(await car.next(), m('h', '12'));
  car.send('H', '*-LOG-Bad,0');
  car.send('H', '*-LOG-Bad,x,86400,data');
  assert.deepEqual(await roundTrip(car), []);

  assert.deepEqual(await h.t.server.store.summarizeHistorical(VID, -1), []);
});

test('H and h records from an app or a batch client are ignored', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  await roundTrip(app);
  await roundTrip(batch);

  for (const c of [app, batch]) {
    c.send('H', '*-LOG-Client,0,86400,x');
    c.send('h', '5,0,*-LOG-Client,1,86400,y');
    assert.deepEqual(await roundTrip(c), [], 'no ack');
  }
  assert.deepEqual(await roundTrip(car), [], 'not forwarded to the car');
  assert.deepEqual(await h.t.server.store.summarizeHistorical(VID, -1), []);
});

test('the record time is now + timediff and it expires lifetime seconds after that', async (ctx) => {
  const h = await harness(ctx);
  const { c: car } = await h.car();

  const t0 = nowSec();
  car.send('h', '21,-3600,*-LOG-Old,0,86400,an hour old');
  assert.deepEqual(await car.next(), m('h', '21'));
  car.send('h', '22,-90000,*-LOG-Old,1,86400,older than its lifetime');
  assert.deepEqual(await car.next(), m('h', '22'));
  const t1 = nowSec();

  const rows = await h.t.server.store.getHistorical(VID, '*-LOG-Old', -1);
  assert.equal(rows.length, 2);
  const [old, ancient] = [rows.find((r) => r.recordNumber === 0)!, rows.find((r) => r.recordNumber === 1)!];
  assert.ok(old.time >= t0 - 3600 && old.time <= t1 - 3600, `time ${old.time} = now - 3600`);
  assert.equal(old.expires, old.time + 86400, 'expires = record time + lifetime (docs/compatibility.md #6)');
  assert.equal(old.data, 'an hour old');
  assert.ok(ancient.time >= t0 - 90000 && ancient.time <= t1 - 90000);
  assert.equal(ancient.expires, ancient.time + 86400);
});
