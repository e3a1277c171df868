/** Drives and charges as CSV (src/core/drives/export.ts): RFC 4180, CRLF, parsed back; CSV injection neutralised in text cells only. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CHARGE_CSV_HEADER, DRIVE_CSV_HEADER, chargeJson, chargesCsv, driveJson, drivesCsv } from '../../../src/core/drives/export.js';
import { charge, drive, place } from './make.js';

/** A small RFC 4180 reader: rows of fields; quoted fields may hold commas, quotes (doubled), CR and LF. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"' && field === '') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quote');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += text[i++];
      }
      if (i < text.length && text[i] !== ',' && text[i] !== '\r') throw new Error(`text after a closing quote at ${i}`);
    } else if (text[i] === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (text[i] === '\r') {
      if (text[i + 1] !== '\n') throw new Error(`bare CR at ${i}`);
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 2;
    } else if (text[i] === '\n' || text[i] === '"') {
      throw new Error(`bare ${JSON.stringify(text[i])} at ${i}`);
    } else field += text[i++];
  }
  if (field !== '' || row.length > 0) throw new Error('last row without CRLF');
  return rows;
}

const T = 1_700_000_000;

test('drives: header of the JSON keys with from/to flattened, a row per drive, null as empty', () => {
  const home = place({ id: 1, name: 'Home, "sweet" home' });
  const d = { ...drive({ start: T, end: T + 600, distance: 12.5, energyUsed: 2, from: { lat: 52.52, lon: 13.405 }, fromPlace: 1, to: null }), id: 3 };
  const csv = drivesCsv([driveJson(d, [home], null, T)]);
  assert.ok(csv.endsWith('\r\n'));
  assert.doesNotMatch(csv.replace(/\r\n/g, ''), /[\r\n]/);
  const rows = parseCsv(csv);
  assert.deepEqual(rows[0], [...DRIVE_CSV_HEADER]);
  assert.deepEqual(rows[0]!.slice(14, 20), ['from_lat', 'from_lon', 'from_place', 'to_lat', 'to_lon', 'to_place']);
  const rec = Object.fromEntries(rows[0]!.map((k, i) => [k, rows[1]![i]]));
  assert.equal(rec.id, '3');
  assert.equal(rec.distance, '12.5');
  assert.equal(rec.efficiency, '160');
  assert.equal(rec.energyRecovered, '');
  assert.equal(rec.from_place, 'Home, "sweet" home');
  assert.equal(rec.from_lat, '52.52');
  assert.deepEqual([rec.to_lat, rec.to_lon, rec.to_place], ['', '', '']);
  assert.equal(rec.source, 'live');
  assert.equal(rows.length, 2);
  assert.equal(drivesCsv([]), DRIVE_CSV_HEADER.join(',') + '\r\n');
});

test('charges: header with `at` flattened, kind, cost and currency', () => {
  const c = { ...charge({ start: T, end: T + 3600, at: { lat: 1.5, lon: -2.25 }, place: 2, cost: 4.2, currency: 'EUR', chargeKind: null }), id: 8 };
  const rows = parseCsv(chargesCsv([chargeJson(c, [place({ id: 2, name: 'Work' })], T)]));
  assert.deepEqual(rows[0], [...CHARGE_CSV_HEADER]);
  const rec = Object.fromEntries(rows[0]!.map((k, i) => [k, rows[1]![i]]));
  assert.deepEqual([rec.at_lat, rec.at_lon, rec.at_place, rec.kind, rec.cost, rec.currency], ['1.5', '-2.25', 'Work', '', '4.2', 'EUR']);
});

test('CSV injection: a place name starting with = + - @ gets an apostrophe; negative numbers do not', () => {
  for (const name of ['=HYPERLINK("x")', '+1', '-cmd', '@SUM(A1)']) {
    const c = { ...charge({ at: { lat: -33.5, lon: -70.6 }, place: 1 }), id: 1 };
    const rows = parseCsv(chargesCsv([chargeJson(c, [place({ id: 1, name })], T)]));
    const rec = Object.fromEntries(rows[0]!.map((k, i) => [k, rows[1]![i]]));
    assert.equal(rec.at_place, `'${name}`);
    assert.equal(rec.at_lat, '-33.5');
    assert.equal(rec.at_lon, '-70.6');
  }
});

test('property: any place name comes back from the CSV (neutralised when it starts like a formula)', () => {
  const name = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: fc.constantFrom('a', ',', '"', '\r', '\n', '=', '+', '-', '@', ' ', 'é', '\t'), maxLength: 20 }));
  fc.assert(
    fc.property(fc.array(name, { minLength: 1, maxLength: 5 }), (names) => {
      const places = names.map((n, i) => place({ id: i + 1, name: n }));
      const rows = names.map((_, i) => driveJson({ ...drive({ from: { lat: i, lon: -i }, fromPlace: i + 1, to: { lat: 0, lon: 0 }, toPlace: null }), id: i }, places, null, T));
      const back = parseCsv(drivesCsv(rows));
      assert.equal(back.length, names.length + 1);
      const col = DRIVE_CSV_HEADER.indexOf('from_place');
      names.forEach((n, i) => {
        const expected = /^[=+\-@\t\r]/.test(n) ? `'${n}` : n;
        assert.equal(back[i + 1]![col], expected);
        assert.equal(back[i + 1]!.length, DRIVE_CSV_HEADER.length);
      });
    }),
  );
});
