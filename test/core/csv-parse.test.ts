/** The CSV reader of bulk registration (src/core/csv-parse.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseCsv } from '../../src/core/csv-parse.js';
import { csvField } from '../../src/core/records/csv.js';
import { fuzzParams } from '../support/fuzz.js';

test('parseCsv: fields, quotes, CRLF / LF / CR, a BOM, empty lines and line numbers', () => {
  assert.deepEqual(parseCsv('\uFEFFid,owner,password\r\nCAR1,demo,secret\r\n\r\n"CAR,2","say ""hi""","two\r\nlines"\nlast,,\rend'), [
    { line: 1, fields: ['id', 'owner', 'password'] },
    { line: 2, fields: ['CAR1', 'demo', 'secret'] },
    { line: 4, fields: ['CAR,2', 'say "hi"', 'two\r\nlines'] },
    { line: 6, fields: ['last', '', ''] },
    { line: 7, fields: ['end'] },
  ]);
  assert.deepEqual(parseCsv(''), []);
  assert.deepEqual(parseCsv('\uFEFF'), []);
  assert.deepEqual(parseCsv('\n\n'), []);
  assert.deepEqual(parseCsv('""\n'), [{ line: 1, fields: [''] }]);
  assert.deepEqual(parseCsv('a,'), [{ line: 1, fields: ['a', ''] }]);
});

test('parseCsv: a malformed row is an error with its line, and the next line is read on', () => {
  assert.deepEqual(parseCsv('a,b\n"x"y,z\nc,d\n"open,\nmore'), [
    { line: 1, fields: ['a', 'b'] },
    { line: 2, error: 'text after a closing quote' },
    { line: 3, fields: ['c', 'd'] },
    { line: 4, error: 'a quoted field is not closed' },
  ]);
});

const char = fc.constantFrom('a', 'Z', '9', ' ', ',', '"', '\r', '\n', 'é', '😀', '-');
const field = fc.oneof(fc.string({ unit: char, maxLength: 12 }), fc.string({ maxLength: 12 }).filter((s) => !s.includes('\uFEFF')));
/** Rows that are not blank lines (a row of one empty field is written as nothing). */
const rows = fc.array(
  fc.array(field, { minLength: 1, maxLength: 5 }).filter((r) => r.length > 1 || r[0] !== ''),
  { maxLength: 20 },
);

test('parseCsv: what a writer quotes is read back, row for row, at the lines it starts on', () => {
  fc.assert(
    fc.property(rows, fc.constantFrom('\r\n', '\n'), fc.boolean(), fc.boolean(), (table, eol, bom, lastEol) => {
      let text = bom ? '\uFEFF' : '';
      const lines: number[] = [];
      let line = 1;
      table.forEach((row, k) => {
        lines.push(line);
        const encoded = row.map(csvField).join(',');
        text += encoded + (k < table.length - 1 || lastEol ? eol : '');
        line += 1 + (encoded.match(/\r\n|\r|\n/g)?.length ?? 0);
      });
      assert.deepEqual(
        parseCsv(text),
        table.map((fields, k) => ({ line: lines[k]!, fields })),
      );
    }),
    fuzzParams(500),
  );
});

test('parseCsv: any text gives rows or errors, never throws, with increasing line numbers', () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.oneof(char, fc.constantFrom('\uFEFF')), maxLength: 200 }), (text) => {
      const out = parseCsv(text);
      for (let k = 1; k < out.length; k++) assert.ok(out[k]!.line > out[k - 1]!.line);
    }),
    fuzzParams(500),
  );
});
