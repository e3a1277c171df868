/**
 * The record endpoints end to end (docs/protocol/http-api-v2.md §4.7–§4.11): a real car sends the messages of
 * the reference transcripts over the MP, and `/api/status`, `/api/charge`, `/api/location`,
 * `/api/tpms` and `/api/protocol` answer the recorded bodies byte for byte (times and ages aside,
 * and the two documented bit-mask deviations), with the reference's headers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { roundTrip } from '../mp/helpers.js';
import { recordBodies } from '../fixtures/load.js';
import { httpHarness, withoutTimes } from './helpers.js';

const F = '3.3.003,VIN0123456789ABCD,5,0,TR,EU,1,ovms';
const S = '80,K,230,16,charging,standard,350,320,16,123,0,5.5,3,1,0,0,0,0,160,60,30,400,90,0,0,0,4000,20,85,450,type2,3.7,390.5,98,3.8,95,-10.5,45,6.2,1234.5,64.0';
const D = '140,8,4,30,40,25,123,12345,0,0,20,2,1,1,12.5,4,12.6,16,35,1.2,21';
const L = '51.5,-0.1,90,20,1,1,0,123,2,5.5,100,10,2,95';
const W = '206.8,20,206.8,21,210.3,22,210.3,23,1';

const golden = (name: string): string => {
  const c = recordBodies().find((x) => x.name === name);
  assert.ok(c, `fixture ${name}`);
  return withoutTimes(c.body);
};

test('status, charge, location and tpms from the stored S, D, L and W: the recorded bodies', async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car();
  for (const [code, data] of [['F', F], ['S', S], ['D', D], ['L', L], ['W', W]] as const) car.send(code, data);
  await roundTrip(car);

  const cases: [string, string][] = [
    ['/api/status/TESTCAR', 'status, full S and D'],
    ['/api/charge/TESTCAR', 'charge, full S and D'],
    ['/api/location/TESTCAR', 'location, full L'],
    ['/api/tpms/TESTCAR', 'tpms, v2 W record'],
  ];
  for (const [path, name] of cases) {
    const r = await h.asDemo(path);
    assert.equal(r.status, 200, path);
    assert.equal(r.reason, 'Ok');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers['access-control-allow-origin'], '*');
    assert.equal(r.headers['cache-control'], 'max-age=0');
    assert.equal(r.headers.expires, r.headers.date);
    assert.equal(withoutTimes(r.body), golden(name), path);
    const json = JSON.parse(r.body) as Record<string, unknown>;
    for (const [key, value] of Object.entries(json)) {
      if (key.startsWith('m_msgage_')) assert.ok(typeof value === 'number' && value >= 0 && value < 60, `${path} ${key}`);
      if (key.startsWith('m_msgtime_')) assert.match(String(value), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    }
  }
});

test('field types on the wire: strings from the car, numbers computed, null for what the car did not send', async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car();
  car.send('S', '80,K,220,70,charging,standard,280,270');
  car.send('D', D);
  await roundTrip(car);
  const status = JSON.parse((await h.asDemo('/api/status/TESTCAR')).body) as Record<string, unknown>;
  const expected: Record<string, 'string' | 'number' | 'null'> = {
    soc: 'string',
    units: 'string',
    chargestate: 'string',
    mode: 'string',
    idealrange: 'string',
    estimatedrange: 'string',
    cac100: 'null',
    cooldown_active: 'null',
    idealrange_max: 'null',
    soh: 'null',
    m_msgtime_s: 'string',
    m_msgage_s: 'number',
    m_msgtime_d: 'string',
    m_msgage_d: 'number',
    caron: 'number',
    carlocked: 'number',
    carawake: 'number',
    alarmsounding: 'number',
    odometer: 'string',
    vehicle12v: 'string',
    temperature_cabin: 'string',
  };
  for (const [key, type] of Object.entries(expected)) {
    assert.equal(status[key] === null ? 'null' : typeof status[key], type, key);
  }
  assert.equal(status.caron, 128);
  assert.equal(status.carlocked, 8);
  assert.equal(Object.keys(status).length, 43, 'every S and D key of the reference, present even when null');
});

test('no stored messages: {} for status, charge, location, tpms; [] for protocol', async (ctx) => {
  const h = await httpHarness(ctx);
  for (const fn of ['status', 'charge', 'location', 'tpms']) {
    const r = await h.asDemo(`/api/${fn}/DEMO1`);
    assert.equal(r.status, 200);
    assert.equal(r.body, '{}\n', fn);
    assert.equal(r.headers['content-length'], '3');
  }
  assert.equal((await h.asDemo('/api/protocol/DEMO1')).body, '[]\n');
});

test('protocol lists the stored messages in replay order (F, S, then the others) with numeric m_paranoid', async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car();
  for (const [code, data] of [['W', W], ['L', L], ['D', D], ['S', S], ['F', F]] as const) car.send(code, data);
  await roundTrip(car);
  const r = await h.asDemo('/api/protocol/TESTCAR');
  assert.equal(r.status, 200);
  const rows = JSON.parse(r.body) as Record<string, unknown>[];
  assert.deepEqual(
    rows.map((x) => x.m_code),
    ['F', 'S', 'D', 'L', 'W'],
  );
  assert.equal(
    withoutTimes(r.body),
    withoutTimes(
      JSON.stringify(
        [
          ['F', F],
          ['S', S],
          ['D', D],
          ['L', L],
          ['W', W],
        ].map(([c, m]) => ({ m_code: c, m_msg: m, m_msgtime: 'x', m_paranoid: 0, m_ptoken: '' })),
      ) + '\n',
    ),
  );
});

test('a paranoid S is a 502 for status and charge, listed by protocol; a paranoid D is skipped', async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car();
  car.send('S', S);
  car.send('E', 'Tptok12345');
  car.send('E', 'MDparanoid-d');
  await roundTrip(car);
  const status = await h.asDemo('/api/status/TESTCAR');
  assert.equal(status.status, 200, 'the D is paranoid, the S is not');
  assert.ok(!('m_msgtime_d' in (JSON.parse(status.body) as object)));

  car.send('E', 'MSparanoid-payload');
  await roundTrip(car);
  for (const fn of ['status', 'charge']) {
    const r = await h.asDemo(`/api/${fn}/TESTCAR`);
    assert.equal(r.status, 502, fn);
    assert.equal(r.reason, 'Bad Gateway');
    assert.equal(r.body, 'Paranoid vehicles not supported by api\n');
    assert.equal(r.headers['content-type'], 'text/plain');
    assert.equal(r.headers['access-control-allow-origin'], '*');
  }
  const rows = JSON.parse((await h.asDemo('/api/protocol/TESTCAR')).body) as Record<string, unknown>[];
  const s = rows.find((x) => x.m_code === 'S');
  assert.deepEqual({ ...s, m_msgtime: 'T' }, { m_code: 'S', m_msg: 'paranoid-payload', m_msgtime: 'T', m_paranoid: 1, m_ptoken: 'ptok12345' });
});

test('tpms prefers the extended Y record; W is the fallback', async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car();
  car.send('W', W);
  car.send('Y', '4,fl,fr,rl,rr,4,206.8,206.8,210.3,210.3,-1,4,20,21,22,23,-1,0,-1,0,-1');
  await roundTrip(car);
  const r = await h.asDemo('/api/tpms/TESTCAR');
  assert.equal(r.status, 200, 'REF crashed here (no response); vts answers the documented body');
  const b = JSON.parse(r.body) as Record<string, unknown>;
  assert.equal(b.fl_pressure_kpa, '206.8');
  assert.equal(b.fl_pressure, 29.9938041626073);
  assert.equal(b.rr_temperature, '23');
  assert.equal(b.staletpms, -1);
  assert.equal(b.m_msgtime_w, b.m_msgtime_y);
  assert.ok(!('fr_pressure_psi' in b));
  assert.match(r.body, /"fl_pressure":29\.9938041626073,/, '15 significant digits on the wire');
});
