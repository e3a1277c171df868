/**
 * Property-based fuzz of the record decoders (src/core/records/): the S, D, L, W and Y bodies of
 * /api/status, /api/charge, /api/location and /api/tpms, the canonical JSON writer, the CSV
 * downloads, the chart series and the trips. Any record data (garbage, valid-looking records with
 * mutated fields, 100 KB of commas) decodes without a throw, in linear time, to a body whose text
 * fields are the record's own fields; the JSON and CSV writers give back what they were given.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { chargeBody } from '../../src/core/records/charge.js';
import { csvField, csvFilename, historicalCsv, historicalSummaryCsv, parseTypeList, foldType, type CsvRecord } from '../../src/core/records/csv.js';
import { PARANOID, splitFields, type RecordBody, type RecordResult, type StoredRecord } from '../../src/core/records/fields.js';
import { buildHistory, type HistoryRecord } from '../../src/core/records/history.js';
import { canonicalJson, type JsonValue } from '../../src/core/records/json.js';
import { historicalRecordRows, historicalSummaryRows, protocolRows } from '../../src/core/records/lists.js';
import { locationBody } from '../../src/core/records/location.js';
import { statusBody } from '../../src/core/records/status.js';
import { tpmsBody } from '../../src/core/records/tpms.js';
import { findTrips, MAX_SPEED, STEP_SLACK, type DistanceUnits } from '../../src/core/records/trips.js';
import { formatUtc } from '../../src/core/time.js';
import { fuzzParams, longInputParams, timed } from '../support/fuzz.js';

// --- record data ---

/** A field as cars send them, and as they should not. */
const fieldText = fc.oneof(
  { weight: 4, arbitrary: fc.oneof(fc.integer({ min: -1000, max: 100_000 }).map(String), fc.double({ noNaN: true }).map(String), fc.constantFrom('K', 'M', 'charging', 'standard', 'FL', 'fr', 'type2')) },
  { weight: 2, arbitrary: fc.constantFrom('', ' ', '-', '+', '1e400', '-1e400', 'NaN', 'Infinity', '0x10', '0b1', ' 12 ', '255', '-1', '4294967296', '9'.repeat(40), '.5', '5.', '1e', '١٢', '__proto__', 'constructor') },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom('a', '1', '.', '-', 'e', ' ', '"', '\\', '\n', '\u0000', 'é', '😀'), maxLength: 8 }) },
);
/** A comma list of up to `n` fields, mostly numbers. */
const fieldsOf = (min: number, max: number): fc.Arbitrary<string> => fc.array(fieldText, { minLength: min, maxLength: max }).map((f) => f.join(','));
const garbage = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
  fc.string({ unit: fc.constantFrom(',', ',', '1', '0', ' ', '-', '.', 'e'), maxLength: 80 }),
);
const recordData = fc.oneof(garbage, fieldsOf(0, 45));
const time = fc.integer({ min: 0, max: 4_102_444_800 });
const stored = (data: fc.Arbitrary<string>): fc.Arbitrary<StoredRecord | undefined> =>
  fc.option(fc.record({ data, time, paranoid: fc.boolean() }), { freq: 4 });

/** A `Y` record: wheel names, then pressures, temperatures, health and alerts with their validities. */
const yRecord = fc
  .tuple(
    fc.uniqueArray(fc.constantFrom('FL', 'FR', 'RL', 'RR', 'ML', 'MR', 'x'), { maxLength: 6 }),
    fc.array(fc.tuple(fc.integer({ min: -1, max: 7 }), fc.array(fieldText, { maxLength: 7 }), fieldText), { minLength: 4, maxLength: 4 }),
    fc.boolean(),
  )
  .map(([names, lists, exact]) => {
    const parts: string[] = [String(names.length), ...names];
    for (const [n, values, validity] of lists) {
      const vals = exact ? names.map((_, i) => values[i] ?? String(i)) : values;
      parts.push(String(exact ? vals.length : n), ...vals, validity);
    }
    return { data: parts.join(','), names, exact };
  });

/** Checks a body: every key a string; text values are fields of `data` (or the UTC time); it is valid JSON. */
function checkBody(result: RecordResult, data: readonly (string | undefined)[]): void {
  if (result === PARANOID) return;
  const fields = new Set(data.flatMap((d) => (d === undefined ? [] : splitFields(d))));
  for (const [key, v] of Object.entries(result)) {
    if (typeof v === 'string' && !key.startsWith('m_msgtime_')) assert.ok(fields.has(v), `${key}: ${JSON.stringify(v)} is not a field`);
    // a TPMS number of a huge text (`1e400`) is Infinity, which the JSON writer turns into null
    if (typeof v === 'number' && !key.endsWith('_pressure') && key !== 'staletpms') assert.ok(Number.isFinite(v), `${key}: ${v}`);
  }
  const json = canonicalJson(result);
  assert.equal(Object.keys(JSON.parse(json) as object).length, Object.keys(result).length);
}

test('property: status, charge, location and tpms bodies from any S, D, L, W and Y data', () => {
  fc.assert(
    fc.property(stored(recordData), stored(recordData), stored(recordData), stored(fc.oneof(recordData, yRecord.map((y) => y.data))), time, (s, d, l, y, now) => {
      const status = statusBody(s, d, now);
      const charge = chargeBody(s, d, now);
      assert.equal(status === PARANOID, s?.paranoid === true);
      assert.equal(charge === PARANOID, s?.paranoid === true);
      checkBody(status, [s?.data, d?.data]);
      checkBody(charge, [s?.data, d?.data]);
      const loc = locationBody(l, now);
      assert.equal(loc === PARANOID, l?.paranoid === true);
      checkBody(loc, [l?.data]);
      const tpms = tpmsBody(y, l, now); // L data as a W record: any data will do
      assert.equal(tpms === PARANOID, y ? y.paranoid : l?.paranoid === true);
      checkBody(tpms, [y?.data ?? l?.data]);
      if (status !== PARANOID && d && !d.paranoid) {
        const b = status as RecordBody;
        for (const [key, mask] of [['caron', 0x80], ['carlocked', 0x08], ['carawake', 0x01], ['alarmsounding', 0x02]] as const) {
          assert.ok(b[key] === 0 || b[key] === mask, `${key}: ${b[key]}`);
        }
      }
    }),
    fuzzParams(3000),
  );
});

test('property: a Y record gives each wheel its own values (kPa as sent, psi as a number)', () => {
  fc.assert(
    fc.property(yRecord.filter((y) => y.exact), time, (y, t) => {
      const body = tpmsBody({ data: y.data, time: t, paranoid: false }, undefined, t) as RecordBody;
      const f = y.data.split(',');
      const n = y.names.length;
      y.names.forEach((name, i) => {
        const wheel = name.toLowerCase();
        const kpa = f[1 + n + 1 + i]!;
        // Perl split: a trailing empty field is no field at all
        if (kpa !== '' || splitFields(y.data).length > 1 + n + 1 + i) assert.equal(body[`${wheel}_pressure_kpa`], kpa);
        assert.equal(typeof body[`${wheel}_pressure`], 'number');
      });
      assert.equal(typeof body.staletpms, 'number');
    }),
    fuzzParams(1500),
  );
});

// --- canonical JSON ---

const keyText = fc.string({ unit: fc.constantFrom('a', 'b', '\u0000', '"', '\\', '_', '1', 'é', '😀', '\u2028'), maxLength: 4 });
const jsonValue: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: 'binary', maxLength: 10 }),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(keyText, tie('v'), { maxKeys: 4, noNullPrototype: true }),
  ),
})).v;

/** What JSON.parse of the canonical text gives: numbers with at most 15 significant digits, -0 as 0. */
function normal(v: JsonValue | undefined): JsonValue {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return null;
    const n = Number.isInteger(v) ? v : Number(v.toPrecision(15));
    return n === 0 ? 0 : n;
  }
  if (typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(normal);
  const out: { [key: string]: JsonValue } = {};
  for (const k of Object.keys(v)) out[k] = normal(v[k]);
  return out;
}

test('property: canonical JSON parses back to the value, is idempotent, and sorts its keys', () => {
  fc.assert(
    fc.property(fc.array(jsonValue, { minLength: 1, maxLength: 4 }), (values) => {
      for (const v of values) {
        const text = canonicalJson(v);
        assert.ok(text.endsWith('\n') && !text.slice(0, -1).includes('\n'));
        const back = JSON.parse(text) as JsonValue;
        assert.deepEqual(normal(back), normal(v));
        assert.equal(canonicalJson(back), text);
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
          const keys = Object.keys(v).sort();
          const prefix = keys.length === 0 ? '{}' : '{' + JSON.stringify(keys[0]) + ':';
          assert.ok(text.startsWith(prefix), `${text} starts with ${prefix}`);
        }
      }
    }),
    fuzzParams(3000),
  );
});

test('keys with NUL in them do not take the key order of another key set (regression)', () => {
  assert.equal(canonicalJson({ a: 1, b: 2 }), '{"a":1,"b":2}\n');
  assert.equal(canonicalJson({ 'a\u0000b': 3 }), '{"a\\u0000b":3}\n');
  assert.equal(canonicalJson({ 'b\u0000a': 4 }), '{"b\\u0000a":4}\n');
  assert.equal(canonicalJson({ a: 5, 'b\u0000': 6 }), '{"a":5,"b\\u0000":6}\n');
  assert.equal(canonicalJson({ 'a\u0000': 7, b: 8 }), '{"a\\u0000":7,"b":8}\n');
});

// --- CSV ---

/** RFC 4180, as a client reads it: rows of fields (CRLF ends a row; quoted fields may hold anything). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        assert.ok(q >= 0, 'an unterminated quote');
        field += text.slice(i, q);
        i = q + 1;
        if (text[i] === '"') {
          field += '"';
          i++;
        } else break;
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
        assert.notEqual(text[i], '"', 'a quote in an unquoted field');
        field += text[i++];
      }
    }
    row.push(field);
    if (text[i] === ',') {
      i++;
      continue;
    }
    assert.equal(text.slice(i, i + 2), '\r\n', 'a row ends with CRLF');
    i += 2;
    rows.push(row);
    row = [];
    if (i >= text.length) return rows;
  }
}

const csvText = fc.string({ unit: fc.constantFrom('a', ',', '"', '\r', '\n', ' ', 'é', '😀', '\u0000', '='), maxLength: 20 });

test('property: the CSV of any records reads back as their fields, ordered by type, time and number', () => {
  const rec = fc.record({ vehicleId: fc.constantFrom('DEMO', 'X,Y', 'q"t'), type: fc.oneof(fc.constantFrom('*-LOG-Trip', '*-log-trip', 'a', 'B'), csvText), recordNumber: fc.integer({ min: -5, max: 1e9 }), time, data: csvText });
  fc.assert(
    fc.property(fc.array(rec, { maxLength: 8 }), (records: CsvRecord[]) => {
      const rows = parseCsv(historicalCsv(records));
      const width = Math.max(1, ...records.map((r) => r.data.split(',').length));
      assert.deepEqual(rows[0], ['vehicleid', 'type', 'recordnumber', 'timestamp', ...Array.from({ length: width }, (_, i) => `field${i + 1}`)]);
      assert.equal(rows.length, records.length + 1);
      const body = rows.slice(1);
      for (const r of body) assert.equal(r.length, 4 + width);
      // the same multiset of records, each row's data fields joining back to its data
      const key = (v: string, t: string, n: string, ts: string, data: string): string => JSON.stringify([v, t, n, ts, data]);
      const got = body.map((r) => key(r[0]!, r[1]!, r[2]!, r[3]!, r.slice(4, 4 + width).join(','))).sort();
      const want = records.map((r) => key(r.vehicleId, r.type, String(r.recordNumber), formatUtc(r.time), r.data + ','.repeat(width - r.data.split(',').length))).sort();
      assert.deepEqual(got, want);
      for (let k = 1; k < body.length; k++) {
        const [a, b] = [body[k - 1]!, body[k]!];
        const ta = foldType(a[1]!);
        const tb = foldType(b[1]!);
        assert.ok(ta < tb || (ta === tb && (a[3]! < b[3]! || (a[3] === b[3] && Number(a[2]) <= Number(b[2])))), 'ordered');
      }
    }),
    fuzzParams(2000),
  );
});

test('property: CSV fields, summaries, type lists and file names', () => {
  const summary = fc.record({ type: csvText, distinctRecords: fc.nat(), totalRecords: fc.nat(), totalSize: fc.nat(), first: time, last: time });
  fc.assert(
    fc.property(csvText, fc.array(summary, { maxLength: 4 }), csvText, fc.array(csvText, { maxLength: 6 }), (value, types, vid, list) => {
      assert.deepEqual(parseCsv(csvField(value) + '\r\n'), [[value]]);
      const rows = parseCsv(historicalSummaryCsv(vid, types));
      assert.equal(rows.length, types.length + 1);
      rows.slice(1).forEach((r, k) => assert.deepEqual(r.slice(0, 2), [vid, types[k]!.type]));
      const parsed = parseTypeList(list.join(','));
      for (const t of parsed) assert.ok(t !== '' && t === t.trim() && !t.includes(','));
      assert.equal(new Set(parsed.map(foldType)).size, parsed.length, 'no duplicates in any case');
      const name = csvFilename(vid, parsed);
      assert.match(name, /^[A-Za-z0-9._+-]+\.csv$/);
    }),
    fuzzParams(2000),
  );
});

// --- lists ---

test('property: the list bodies keep every message and record, in replay order', () => {
  const code = fc.constantFrom('F', 'S', 'D', 'L', 'W', 'Y', 'a', '*');
  const msg = fc.record({ code, data: garbage, time, paranoid: fc.boolean(), ptoken: fc.string({ maxLength: 4 }) });
  fc.assert(
    fc.property(fc.array(msg, { maxLength: 8 }), (messages) => {
      const rows = protocolRows(messages);
      assert.equal(rows.length, messages.length);
      const rank = (c: unknown): number => (c === 'F' ? 0 : c === 'S' ? 1 : 2);
      for (let k = 1; k < rows.length; k++) assert.ok(rank(rows[k - 1]!.m_code) <= rank(rows[k]!.m_code));
      assert.deepEqual(historicalRecordRows(messages.map((m, i) => ({ recordNumber: i, time: m.time, data: m.data }))).map((r) => r.h_data), messages.map((m) => m.data));
      assert.equal(historicalSummaryRows([]).length, 0);
      for (const r of rows) canonicalJson(r);
    }),
    fuzzParams(1000),
  );
});

// --- chart series and trips ---

/** Records of a drive: odometer readings that grow (or not) over time, with S and L records between. */
const drive = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.tuple(fc.constant('D'), fc.integer({ min: 0, max: 900 }), fc.integer({ min: -50, max: 400 })) },
      { weight: 1, arbitrary: fc.tuple(fc.constant('S'), fc.integer({ min: 0, max: 900 }), fc.integer({ min: 0, max: 100 })) },
      { weight: 1, arbitrary: fc.tuple(fc.constant('L'), fc.integer({ min: 0, max: 900 }), fc.integer({ min: -90, max: 90 })) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('D', 'S', 'L', 'W'), fc.integer({ min: 0, max: 900 }), fc.constant(NaN)) },
    ),
    { maxLength: 40 },
  )
  .chain((steps) =>
    fc.tuple(fc.constant(steps), fc.array(recordData, { minLength: steps.length, maxLength: steps.length })).map(([s, junk]) => {
      let t = 1_700_000_000;
      let odo = 100_000;
      return s.map(([code, dt, v], i): HistoryRecord => {
        t += dt;
        if (Number.isNaN(v)) return { code, time: t, data: junk[i]! };
        if (code === 'D') {
          odo += v;
          return { code, time: t, data: `0,0,4,30,40,25,0,${odo},0,0,20` };
        }
        if (code === 'S') return { code, time: t, data: `${v},K,0,0,stopped,standard,300,280` };
        return { code, time: t, data: `${v},${v / 2},90,1` };
      });
    }),
  );

test('property: chart series and trips from any records: finite points, ordered, plausible trips', () => {
  fc.assert(
    fc.property(drive, fc.constantFrom<DistanceUnits>('K', 'M'), fc.boolean(), (records, units, shuffle) => {
      const input = shuffle ? [...records].reverse() : records;
      const h = buildHistory(input);
      for (const series of Object.values(h.series)) {
        for (let k = 0; k < series.length; k++) {
          assert.ok(Number.isFinite(series[k]![1]));
          if (k > 0) assert.ok(series[k - 1]![0] <= series[k]![0]);
        }
      }
      const trips = findTrips(input, units);
      const readings = records.filter((r) => r.code === 'D').length;
      trips.forEach((trip, k) => {
        assert.ok(trip.start <= trip.end);
        if (k > 0) assert.ok(trips[k - 1]!.end <= trip.start, 'trips do not overlap');
        assert.ok(trip.distance > 0);
        const most = (MAX_SPEED[units] * (trip.end - trip.start)) / 3600 + STEP_SLACK * readings + 0.05;
        assert.ok(trip.distance <= most, `${trip.distance} > ${most}`);
        for (const p of [trip.from, trip.to]) if (p) assert.ok(Number.isFinite(p.lat) && Number.isFinite(p.lon));
      });
    }),
    fuzzParams(2000),
  );
});

// --- time ---

test('property: every record decoder takes linear time on 100 KB adversarial data', () => {
  const long = fc
    .tuple(fc.constantFrom(',', ',,', '1,', '9', ' ', '-1,', '1e', 'a,"', '64,'), fc.integer({ min: 1000, max: 100_000 }), fc.constantFrom('', 'x', '1'))
    .map(([p, n, s]) => p.repeat(Math.ceil(n / p.length)).slice(0, n) + s);
  fc.assert(
    fc.property(long, (data) => {
      const r: StoredRecord = { data, time: 1_700_000_000, paranoid: false };
      timed('statusBody', data, () => statusBody(r, r, r.time));
      timed('chargeBody', data, () => chargeBody(r, r, r.time));
      timed('locationBody', data, () => locationBody(r, r.time));
      timed('tpmsBody Y', data, () => tpmsBody(r, undefined, r.time));
      timed('tpmsBody W', data, () => tpmsBody(undefined, r, r.time));
      timed('buildHistory', data, () => buildHistory([{ code: 'S', time: 1, data }, { code: 'D', time: 2, data }, { code: 'L', time: 3, data }]));
      timed('findTrips', data, () => findTrips([{ code: 'D', time: 1, data }, { code: 'L', time: 2, data }]));
      timed('historicalCsv', data, () => historicalCsv([{ vehicleId: 'V', type: 't', recordNumber: 1, time: 1, data }]));
      timed('parseTypeList', data, () => parseTypeList(data));
      timed('csvFilename', data, () => csvFilename('V', data));
      timed('canonicalJson', data, () => canonicalJson({ [data.slice(0, 1000)]: data }));
    }),
    longInputParams(100),
  );
});
