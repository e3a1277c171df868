/**
 * historicalRecordsJsonPart (src/core/records/lists.ts), written without an object per record: its
 * parts joined into an array are byte for byte canonicalJson(historicalRecordRows(…)), for data
 * holding quotes, backslashes, control characters, non-ASCII and U+2028, any record number.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson } from '../../src/core/records/json.js';
import { historicalRecordRows, historicalRecordsJsonPart } from '../../src/core/records/lists.js';

test('the parts of an answer are the canonical JSON of its records', () => {
  const datas = ['plain', 'a "quoted", \\ backslash', 'tab\tnew\nline\u0001', 'Größe €', 'sep\u2028arator', '', '{"json":1}'];
  const records = datas.flatMap((data, i) => [
    { time: 1_700_000_000 + i, recordNumber: i, data },
    { time: 1_700_000_000 + i, recordNumber: -7 * i, data },
    { time: 0, recordNumber: 2 ** 40, data },
  ]);
  assert.equal('[' + historicalRecordsJsonPart(records) + ']\n', canonicalJson(historicalRecordRows(records)));
  const half = records.length >> 1;
  assert.equal(
    '[' + historicalRecordsJsonPart(records.slice(0, half)) + ',' + historicalRecordsJsonPart(records.slice(half)) + ']\n',
    canonicalJson(historicalRecordRows(records)),
  );
  assert.equal('[' + historicalRecordsJsonPart([]) + ']\n', canonicalJson([]));
});
