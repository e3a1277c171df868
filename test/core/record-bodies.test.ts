/**
 * The decoders behind /api/status, /api/charge, /api/location and /api/tpms (src/core/records/),
 * checked byte for byte against the reference server's recorded bodies
 * (test/fixtures/http/record-bodies.json), and field by field for the JSON value types.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chargeBody } from '../../src/core/records/charge.js';
import { PARANOID, type RecordResult, type StoredRecord } from '../../src/core/records/fields.js';
import { canonicalJson } from '../../src/core/records/json.js';
import { locationBody } from '../../src/core/records/location.js';
import { statusBody } from '../../src/core/records/status.js';
import { tpmsBody } from '../../src/core/records/tpms.js';
import { recordBodies, type RecordBodyCase } from '../fixtures/load.js';

const epoch = (utc: string): number => Date.parse(utc.replace(' ', 'T') + 'Z') / 1000;

function decode(c: RecordBodyCase): RecordResult {
  const rec = (code: 'S' | 'D' | 'L' | 'W' | 'Y'): StoredRecord | undefined => {
    const r = c.records[code];
    return r && { data: r.data, time: epoch(r.time), paranoid: r.paranoid };
  };
  const now = epoch(c.now);
  switch (c.endpoint) {
    case 'status':
      return statusBody(rec('S'), rec('D'), now);
    case 'charge':
      return chargeBody(rec('S'), rec('D'), now);
    case 'location':
      return locationBody(rec('L'), now);
    case 'tpms':
      return tpmsBody(rec('Y'), rec('W'), now);
  }
}

for (const c of recordBodies()) {
  test(`golden body: ${c.name}`, () => {
    const result = decode(c);
    if (c.status === 502) {
      assert.equal(result, PARANOID);
      assert.equal(c.body, 'Paranoid vehicles not supported by api\n');
      return;
    }
    assert.notEqual(result, PARANOID);
    assert.equal(canonicalJson(result as Exclude<RecordResult, typeof PARANOID>), c.body);
  });
}

const S_FULL =
  '80,K,230,16,charging,standard,350,320,16,123,0,5.5,3,1,0,0,0,0,160,60,30,400,90,0,0,0,4000,20,85,450,type2,3.7,390.5,98,3.8,95,-10.5,45,6.2,1234.5,64.0';
const D_FULL = '140,8,4,30,40,25,123,12345,0,0,20,2,1,1,12.5,4,12.6,16,35,1.2,21';

test('value types: message fields are strings, bits and ages numbers, absent fields null', () => {
  const body = statusBody({ data: '80,K,,,charging', time: 100, paranoid: false }, { data: D_FULL, time: 90, paranoid: false }, 110);
  assert.notEqual(body, PARANOID);
  const b = body as Record<string, unknown>;
  assert.equal(b.soc, '80');
  assert.equal(b.chargestate, 'charging');
  assert.equal(b.mode, null, 'the message ends before field 6');
  assert.equal(b.m_msgage_s, 10);
  assert.equal(b.m_msgage_d, 20);
  assert.equal(b.m_msgtime_s, '1970-01-01 00:01:40');
  assert.equal(b.caron, 128);
  assert.equal(b.carlocked, 8);
  assert.equal(b.fl_dooropen, 0);
  assert.equal(b.odometer, '12345');
});

test('an empty field in the middle is "", trailing empty fields are null (Perl split)', () => {
  const b = locationBody({ data: '51.5,,90,,', time: 0, paranoid: false }, 0) as Record<string, unknown>;
  assert.equal(b.latitude, '51.5');
  assert.equal(b.longitude, '');
  assert.equal(b.direction, '90');
  assert.equal(b.altitude, null);
  assert.equal(b.gpslock, null);
});

test('carawake and alarmsounding follow the firmware bits (doors3 0x01, doors4 0x02)', () => {
  const d = (doors3: number, doors4: number) =>
    statusBody(undefined, { data: `0,0,4,1,2,3,4,5,6,7,8,${doors3},1,1,12,${doors4}`, time: 0, paranoid: false }, 0) as Record<
      string,
      unknown
    >;
  assert.equal(d(1, 0).carawake, 1);
  assert.equal(d(2, 0).carawake, 0, 'the cooling-pump bit is not "awake"');
  assert.equal(d(0, 2).alarmsounding, 2);
  assert.equal(d(0, 4).alarmsounding, 0);
});

test('a missing or non-numeric bit field gives 0; a short D still has every key', () => {
  const b = statusBody(undefined, { data: 'x', time: 0, paranoid: false }, 0) as Record<string, unknown>;
  assert.equal(b.caron, 0);
  assert.equal(b.charging_12v, 0);
  assert.equal(b.temperature_cabin, null);
  assert.ok('vehicle12v_current' in b);
});

test('a paranoid D is skipped silently; a paranoid L, W or Y is a 502', () => {
  const s = { data: S_FULL, time: 0, paranoid: false };
  const b = statusBody(s, { data: 'secret', time: 0, paranoid: true }, 0) as Record<string, unknown>;
  assert.equal(b.soc, '80');
  assert.ok(!('m_msgtime_d' in b));
  assert.equal(locationBody({ data: 'x', time: 0, paranoid: true }, 0), PARANOID);
  assert.equal(tpmsBody(undefined, { data: 'x', time: 0, paranoid: true }, 0), PARANOID);
  assert.equal(tpmsBody({ data: 'x', time: 0, paranoid: true }, undefined, 0), PARANOID);
});

test('tpms from a Y record: per-wheel keys, psi with 15 significant digits, staletpms the maximum', () => {
  const y = 'Y4,fl,fr,rl,rr,4,206.8,206.8,210.3,210.3,-1,4,20,21,22,23,-1,0,-1,0,-1'.slice(1);
  const now = epoch('2026-11-22 02:15:05');
  const body = tpmsBody({ data: y, time: epoch('2026-11-22 02:15:02'), paranoid: false }, { data: 'ignored', time: 0, paranoid: false }, now);
  assert.notEqual(body, PARANOID);
  assert.equal(
    canonicalJson(body as Exclude<RecordResult, typeof PARANOID>),
    '{"fl_pressure":29.9938041626073,"fl_pressure_kpa":"206.8","fl_temperature":"20",' +
      '"fr_pressure":29.9938041626073,"fr_pressure_kpa":"206.8","fr_temperature":"21",' +
      '"m_msgage_w":3,"m_msgage_y":3,"m_msgtime_w":"2026-11-22 02:15:02","m_msgtime_y":"2026-11-22 02:15:02",' +
      '"rl_pressure":30.501436244663,"rl_pressure_kpa":"210.3","rl_temperature":"22",' +
      '"rr_pressure":30.501436244663,"rr_pressure_kpa":"210.3","rr_temperature":"23",' +
      '"stale_alert":"-1","stale_health":"-1","stale_pressure":"-1","stale_temperature":"-1","staletpms":-1}\n',
  );
});

test('tpms from the well-formed Y example of docs/protocol/messages.md §3.5 (health and alert sections)', () => {
  const y = '4,FL,FR,RL,RR,4,200.0,200.0,276.0,276.0,1,4,22.0,22.0,26.0,26.0,1,4,100.0,100.0,100.0,100.0,1,4,0,0,0,0,1,0,-1';
  const b = tpmsBody({ data: y, time: 0, paranoid: false }, undefined, 0) as Record<string, unknown>;
  assert.equal(b.fl_pressure_kpa, '200.0');
  assert.equal(b.fl_pressure, 200 * 0.14503773773020923);
  assert.equal(b.rr_temperature, '26.0');
  assert.equal(b.rl_health, '100.0');
  assert.equal(b.fr_alert, '0');
  assert.equal(b.stale_alert, '1');
  assert.equal(b.staletpms, 1);
});

test('a malformed Y record gives a body, never an exception', () => {
  for (const y of ['', 'x', '99999999999', '2,a', '4,fl,fr,rl,rr,9999,1', '-5,a,b', ',,,,']) {
    const b = tpmsBody({ data: y, time: 0, paranoid: false }, undefined, 0);
    assert.equal(typeof b, 'object', y);
  }
});

test('canonicalJson: sorted keys, compact, newline; 15 significant digits for fractions', () => {
  assert.equal(canonicalJson({}), '{}\n');
  assert.equal(canonicalJson([]), '[]\n');
  assert.equal(canonicalJson({ b: 1, a: [null, 'x"y', 2.5], c: { z: true, y: false } }), '{"a":[null,"x\\"y",2.5],"b":1,"c":{"y":false,"z":true}}\n');
  assert.equal(canonicalJson({ p: 206.8 * 0.14503773773020923 }), '{"p":29.9938041626073}\n');
  assert.equal(canonicalJson({ u: 'Zürich' }), '{"u":"Zürich"}\n', 'UTF-8, not double-encoded');
  assert.equal(canonicalJson({ a: 3, 9: 2, 10: 1 }), '{"10":1,"9":2,"a":3}\n', 'index-like keys sort as text too');
  assert.equal(canonicalJson({ x: [{ b: 1, a: 2 }, { a: 2, b: 1 }] }), '{"x":[{"a":2,"b":1},{"a":2,"b":1}]}\n');
});

test('charge has S fields up to 41 and only its D keys', () => {
  const b = chargeBody({ data: S_FULL, time: 0, paranoid: false }, { data: D_FULL, time: 0, paranoid: false }, 0) as Record<
    string,
    unknown
  >;
  assert.equal(b.batt_capacity, '64.0');
  assert.equal(b.chargetype, 'type2');
  assert.ok(!('odometer' in b), 'odometer is a status key');
  assert.ok(!('fl_dooropen' in b));
  assert.equal(b.cp_dooropen, 4);
});
