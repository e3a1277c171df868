/** The CSV writer of historical downloads (src/core/records/csv.ts): RFC 4180, CRLF, split data. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  csvField,
  csvFilename,
  csvRow,
  historicalCsv,
  historicalSummaryCsv,
  parseTypeList,
  splitData,
  type CsvRecord,
} from '../../src/core/records/csv.js';

const T0 = Date.UTC(2024, 0, 2, 3, 4, 5) / 1000; // 2024-01-02 03:04:05
const rec = (type: string, time: number, recordNumber: number, data: string): CsvRecord => ({
  vehicleId: 'CAR1',
  type,
  recordNumber,
  time,
  data,
});

test('csvField: plain text as is; comma, quote, CR and LF quoted with quotes doubled', () => {
  assert.equal(csvField('plain text'), 'plain text');
  assert.equal(csvField(''), '');
  assert.equal(csvField(42), '42');
  assert.equal(csvField(-3.5), '-3.5');
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField('"'), '""""');
  assert.equal(csvField('line\nbreak'), '"line\nbreak"');
  assert.equal(csvField('cr\rhere'), '"cr\rhere"');
  assert.equal(csvField('crlf\r\n'), '"crlf\r\n"');
  assert.equal(csvField("it's; fine"), "it's; fine", 'apostrophes and semicolons need no quotes');
});

test('csvRow: comma separated, CRLF ended', () => {
  assert.equal(csvRow(['a', 1, 'b,c', '']), 'a,1,"b,c",\r\n');
  assert.equal(csvRow([]), '\r\n');
});

test('splitData: every comma separates; joining gives the data back', () => {
  for (const data of ['', 'a', 'a,b', ',', 'a,,b,', '"quoted",x']) {
    assert.equal(splitData(data).join(','), data);
  }
  assert.deepEqual(splitData(''), ['']);
  assert.deepEqual(splitData('a,,b,'), ['a', '', 'b', '']);
});

test('historicalCsv: no records is the header alone, with one data column', () => {
  assert.equal(historicalCsv([]), 'vehicleid,type,recordnumber,timestamp,field1\r\n');
});

test('historicalCsv: the data split into as many columns as the widest record; narrower ones padded', () => {
  const csv = historicalCsv([
    rec('*-LOG-Test', T0, 0, 'hello,world'),
    rec('*-LOG-Test', T0 + 1, 1, 'one'),
    rec('*-LOG-Test', T0 + 2, 2, 'a,b,c'),
  ]);
  assert.equal(
    csv,
    'vehicleid,type,recordnumber,timestamp,field1,field2,field3\r\n' +
      'CAR1,*-LOG-Test,0,2024-01-02 03:04:05,hello,world,\r\n' +
      'CAR1,*-LOG-Test,1,2024-01-02 03:04:06,one,,\r\n' +
      'CAR1,*-LOG-Test,2,2024-01-02 03:04:07,a,b,c\r\n',
  );
  // every row has the same number of fields (no field contains a comma here)
  const widths = csv.trimEnd().split('\r\n').map((l) => l.split(',').length);
  assert.deepEqual(new Set(widths), new Set([7]));
});

test('historicalCsv: quotes and line breaks inside the data are quoted', () => {
  const csv = historicalCsv([rec('*-LOG-Note', T0, 0, 'he said "hi",two\nlines,x\r\ny')]);
  assert.equal(
    csv,
    'vehicleid,type,recordnumber,timestamp,field1,field2,field3\r\n' +
      'CAR1,*-LOG-Note,0,2024-01-02 03:04:05,"he said ""hi""","two\nlines","x\r\ny"\r\n',
  );
});

test('historicalCsv: ordered by type (case-insensitively), then time, then record number', () => {
  const csv = historicalCsv([
    rec('S', T0, 0, 's'),
    rec('*-LOG-Test', T0 + 10, 0, 'late'),
    rec('*-LOG-Test', T0, 2, 'early 2'),
    rec('*-log-alpha', T0 + 99, 0, 'alpha'),
    rec('*-LOG-Test', T0, 1, 'early 1'),
  ]);
  const rows = csv.trimEnd().split('\r\n').slice(1);
  assert.deepEqual(
    rows.map((r) => r.split(',').slice(1, 3).concat(r.split(',')[4]!).join(' ')),
    ['*-log-alpha 0 alpha', '*-LOG-Test 1 early 1', '*-LOG-Test 2 early 2', '*-LOG-Test 0 late', 'S 0 s'],
  );
});

test('historicalSummaryCsv: one row per type', () => {
  const csv = historicalSummaryCsv('CAR1', [
    { type: '*-LOG-Test', distinctRecords: 2, totalRecords: 3, totalSize: 120, first: T0, last: T0 + 60 },
  ]);
  assert.equal(
    csv,
    'vehicleid,type,distinctrecs,totalrecs,totalsize,first,last\r\n' +
      'CAR1,*-LOG-Test,2,3,120,2024-01-02 03:04:05,2024-01-02 03:05:05\r\n',
  );
  assert.equal(historicalSummaryCsv('CAR1', []), 'vehicleid,type,distinctrecs,totalrecs,totalsize,first,last\r\n');
});

test('parseTypeList: trimmed, empty entries dropped, duplicates in any case once, in type order', () => {
  assert.deepEqual(parseTypeList('S, *-LOG-Test,,*-log-test ,*-LOG-Alpha'), ['*-LOG-Alpha', '*-LOG-Test', 'S']);
  assert.deepEqual(parseTypeList(''), []);
  assert.deepEqual(parseTypeList(' , ,'), []);
});

test('csvFilename: vehicle and types, unsafe characters replaced, long lists shortened', () => {
  assert.equal(csvFilename('CAR1', ['*-LOG-Trip']), 'CAR1-_-LOG-Trip.csv');
  assert.equal(csvFilename('CAR1', ['*-LOG-Trip', 'S']), 'CAR1-_-LOG-Trip+S.csv');
  assert.equal(csvFilename('CAR1', 'summary'), 'CAR1-summary.csv');
  assert.equal(csvFilename('CAR1', ['a"b/c\\d e']), 'CAR1-a_b_c_d_e.csv');
  const many = Array.from({ length: 30 }, (_, i) => `*-LOG-Type${i}`);
  assert.equal(csvFilename('CAR1', many), 'CAR1-historical.csv');
});
