/**
 * The ABRP send policy and telemetry (src/core/abrp/): the fields made from `S`, `D`, `L` (units,
 * fields left out, never null), the policy's table, significant changes, back-off, the reading
 * of ABRP's answers, and properties over random telemetry and time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildTlm, tlmJson, TLM_FIELDS, type AbrpTlm } from '../../src/core/abrp/telemetry.js';
import { activity, backoffSeconds, BACKOFF_MAX, classifyAnswer, decide, INTERVALS, MIN_INTERVAL, significantChange, type Sent } from '../../src/core/abrp/policy.js';
import { fuzzParams } from '../support/fuzz.js';

/** An `S` with the given 1-based fields set (others empty). */
function record(fields: Record<number, string | number>, length: number): string {
  const f = new Array<string>(length).fill('');
  for (const [n, v] of Object.entries(fields)) f[Number(n) - 1] = String(v);
  return f.join(',');
}

test('the telemetry of a charging car in km: every field from S, D and L, rounded, in metric units', () => {
  const s = record({ 1: 55.4, 2: 'K', 5: 'charging', 6: 'standard', 7: 210, 12: 53, 32: 7.2, 33: 396.5, 34: 97, 35: 7.4, 37: -18.26 }, 42);
  const d = record({ 6: 21, 8: 123456, 9: 0, 10: 3600, 11: 14.5, 13: 1, 14: 1 }, 21);
  const l = record({ 1: '52.520008', 2: '13.404954', 3: 181.25, 4: 34.56, 7: 0, 10: -7.151 }, 19);
  const tlm = buildTlm({ s, d, l }, 1_780_000_000);
  assert.deepEqual(tlm, {
    utc: 1_780_000_000,
    soc: 55.4,
    power: -7.2,
    is_charging: true,
    is_dcfc: false,
    kwh_charged: 5.3,
    est_battery_range: 210,
    soh: 97,
    voltage: 396.5,
    current: -18.3,
    lat: 52.52001,
    lon: 13.40495,
    heading: 181.3,
    elevation: 34.6,
    speed: 0,
    is_parked: true,
    batt_temp: 21,
    ext_temp: 14.5,
    odometer: 12345.6,
  });
  // the JSON has the documented order and nothing else
  assert.deepEqual(Object.keys(JSON.parse(tlmJson(tlm)) as object), TLM_FIELDS.filter((k) => k in tlm));
});

test('miles become km; a DC charge by its mode or its power; not charging: kwh_charged 0', () => {
  const miles = buildTlm({ s: record({ 1: 80, 2: 'M', 5: 'driving', 7: 100 }, 42), d: record({ 8: 10000, 10: 0 }, 21), l: record({ 1: 1, 2: 2, 7: 50 }, 19) }, 1);
  assert.equal(miles.speed, 80.5);
  assert.equal(miles.odometer, 1609.3);
  assert.equal(miles.est_battery_range, 161);
  assert.equal(miles.is_charging, false);
  assert.equal(miles.is_dcfc, false);
  assert.equal(miles.kwh_charged, 0);
  assert.equal(miles.is_parked, false);
  assert.equal(buildTlm({ s: record({ 5: 'charging', 6: 'performance' }, 42) }, 1).is_dcfc, true);
  assert.equal(buildTlm({ s: record({ 5: 'topoff', 6: 'standard', 32: 48 }, 42) }, 1).is_dcfc, true);
  assert.equal(buildTlm({ s: record({ 5: 'charging', 6: 'standard', 32: 11 }, 42) }, 1).is_dcfc, false);
});

test('what the records do not give is left out: no S, no fix, stale temperatures, a FW2 L', () => {
  const tlm = buildTlm({ d: record({ 6: 20, 11: 9, 13: 0, 14: -1 }, 21), l: '0.000000,0.000000,0,0,0,0' }, 5);
  assert.deepEqual(tlm, { utc: 5 });
  assert.equal(tlmJson(tlm), '{"utc":5}');
  // the D speed (km/h) when L has none
  assert.equal(buildTlm({ d: record({ 9: 42 }, 21), l: '1,2,3,4,1,1' }, 5).speed, 42);
  // garbage is no value
  assert.deepEqual(buildTlm({ s: 'x,K,,', d: 'y', l: 'NaN,Infinity' }, 5), { utc: 5 });
});

const tlm = (t: Partial<AbrpTlm>): AbrpTlm => ({ utc: 0, ...t });

test('the policy table: 5 s above 70 km/h, 160 s driving or DC charging, 30 min AC charging or standing, a day parked', () => {
  const cases: [Partial<AbrpTlm>, string, number][] = [
    [{ speed: 90 }, 'fast', 5],
    [{ speed: 40 }, 'driving', 160],
    [{ is_charging: true, is_dcfc: true }, 'dc-charging', 160],
    [{ is_charging: true, is_dcfc: false }, 'ac-charging', 1800],
    [{ speed: 0, is_parked: false }, 'standing', 1800],
    [{ speed: 0, is_parked: true }, 'parked', 86400],
  ];
  for (const [t, name, seconds] of cases) {
    const now = tlm({ soc: 50, ...t });
    assert.equal(activity(now), name);
    assert.equal(INTERVALS[activity(now)], seconds);
    const sent: Sent = { tlm: now, at: 1000 };
    assert.equal(decide(sent, now, 1000 + seconds - 1).send, false, `${name}: not before ${seconds} s`);
    assert.deepEqual(decide(sent, now, 1000 + seconds), { send: true, reason: 'interval', dueAt: 1000 + seconds });
  }
  assert.equal(decide(null, tlm({}), 7).reason, 'first');
});

test('significant changes send at once: SOC (whole percent), charging, parked, 1 kW while charging', () => {
  const base = tlm({ soc: 50.2, is_charging: true, is_parked: true, power: -7 });
  assert.equal(significantChange(base, { ...base, soc: 50.4 }), null);
  assert.equal(significantChange(base, { ...base, soc: 50.6 }), 'soc');
  assert.equal(significantChange(base, { ...base, is_charging: false }), 'charging');
  assert.equal(significantChange(base, { ...base, is_parked: false }), 'parked');
  assert.equal(significantChange(base, { ...base, power: -7.9 }), null);
  assert.equal(significantChange(base, { ...base, power: -8 }), 'power');
  assert.equal(significantChange({ ...base, is_charging: false }, { ...base, is_charging: false, power: 30 }), null, 'power while not charging is no change');
  // a value not known now is no change
  assert.equal(significantChange(base, tlm({})), null);
  assert.equal(decide({ tlm: base, at: 100 }, { ...base, soc: 52 }, 101).reason, 'soc');
});

test('back-off doubles from 30 s to 30 min and honours Retry-After up to the cap', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 50].map((n) => backoffSeconds(n)), [30, 60, 120, 240, 480, 960, 1800, 1800]);
  assert.equal(backoffSeconds(1, 300), 300);
  assert.equal(backoffSeconds(1, 999_999), BACKOFF_MAX);
});

test("ABRP's answers: ok, an error answer or a 5xx/429 is tried again, 401/403 refuse the token", () => {
  assert.deepEqual(classifyAnswer(200, null, '{"status":"ok"}'), { kind: 'ok' });
  assert.deepEqual(classifyAnswer(200, null, ''), { kind: 'ok' });
  assert.deepEqual(classifyAnswer(200, null, '{"status":"error","error":"bad tlm"}'), { kind: 'retry', reason: 'ABRP answered an error: bad tlm' });
  assert.deepEqual(classifyAnswer(500, null, 'oops'), { kind: 'retry', reason: 'ABRP answered HTTP 500' });
  assert.deepEqual(classifyAnswer(429, '120', ''), { kind: 'retry', reason: 'ABRP answered HTTP 429', retryAfter: 120 });
  for (const status of [401, 403]) assert.equal(classifyAnswer(status, null, '').kind, 'refused');
});

/** Random records: fields of every shape, from numbers to garbage. */
const fieldText = fc.oneof(fc.constant(''), fc.double({ noNaN: false }).map(String), fc.integer({ min: -5, max: 200000 }).map(String), fc.constantFrom('K', 'M', 'charging', 'topoff', 'stopped', 'performance', 'NaN', 'x'));
const recordText = (n: number) => fc.array(fieldText, { maxLength: n }).map((f) => f.join(','));

test('property: the telemetry never holds a null, undefined or non-finite value, whatever the records', () => {
  fc.assert(
    fc.property(fc.option(recordText(42), { nil: undefined }), fc.option(recordText(21), { nil: undefined }), fc.option(recordText(19), { nil: undefined }), (s, d, l) => {
      const t = buildTlm({ ...(s === undefined ? {} : { s }), ...(d === undefined ? {} : { d }), ...(l === undefined ? {} : { l }) }, 1_780_000_000);
      for (const [k, v] of Object.entries(t)) {
        assert.ok((TLM_FIELDS as readonly string[]).includes(k), k);
        assert.ok(typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)), `${k}: ${String(v)}`);
      }
      const json = tlmJson(t);
      assert.ok(!json.includes('null'), json);
    }),
    fuzzParams(500),
  );
});

const arbTlm = fc.record(
  {
    soc: fc.double({ min: 0, max: 100, noNaN: true }),
    speed: fc.double({ min: 0, max: 200, noNaN: true }),
    power: fc.double({ min: -150, max: 150, noNaN: true }),
    is_charging: fc.boolean(),
    is_dcfc: fc.boolean(),
    is_parked: fc.boolean(),
  },
  { requiredKeys: [] },
).map((t) => tlm(t));

test('property: a stream of telemetry never sends twice within 5 s without a significant change, and each interval is kept', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 4000 }), arbTlm), { minLength: 1, maxLength: 60 }), (steps) => {
      let now = 1_000_000;
      let sent: Sent | null = null;
      for (const [gap, t] of steps) {
        now += gap;
        const d = decide(sent, t, now);
        if (sent !== null) {
          const why = significantChange(sent.tlm, t);
          if (now - sent.at < MIN_INTERVAL) assert.equal(d.send, why !== null, 'within 5 s only a significant change sends');
          if (why === null) assert.equal(d.send, now - sent.at >= INTERVALS[activity(t)]);
          else assert.equal(d.send, true);
        }
        if (d.send) sent = { tlm: t, at: now };
      }
    }),
    fuzzParams(500),
  );
});
