/** The memo of rendered record answers (src/http/api-v2/record-memo.ts): keyed on the records' values and the second. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RecordMemo } from '../../src/http/api-v2/record-memo.js';

const rec = (data: string, time = 100, paranoid = false) => ({ data, time, paranoid });

test('a remembered answer is used for records of the same values in the same second, and for nothing else', () => {
  const memo = new RecordMemo();
  const body = Buffer.from('{"soc":"80"}\n');
  assert.equal(memo.get('CAR', [rec('80'), undefined], 200), undefined);
  memo.set('CAR', [rec('80'), undefined], 200, body);
  assert.equal(memo.get('CAR', [rec('80'), undefined], 200), body, 'other objects, the same values');
  assert.equal(memo.get('CAR', [rec('81'), undefined], 200), undefined, 'other text');
  assert.equal(memo.get('CAR', [rec('80', 101), undefined], 200), undefined, 'other time');
  assert.equal(memo.get('CAR', [rec('80', 100, true), undefined], 200), undefined, 'paranoid now');
  assert.equal(memo.get('CAR', [rec('80'), rec('1')], 200), undefined, 'a record that was not there');
  assert.equal(memo.get('CAR', [undefined, undefined], 200), undefined, 'a record removed');
  assert.equal(memo.get('CAR', [rec('80'), undefined], 201), undefined, 'the next second');
  assert.equal(memo.get('OTHER', [rec('80'), undefined], 200), undefined, 'another vehicle');

  memo.set('CAR', [rec('81')], 200, 'paranoid');
  assert.equal(memo.get('CAR', [rec('81')], 200), 'paranoid');
});

test('only the current second is held, and at most max vehicles', () => {
  const memo = new RecordMemo(2);
  memo.set('A', [rec('1')], 10, Buffer.from('a'));
  memo.set('B', [rec('1')], 10, Buffer.from('b'));
  memo.set('C', [rec('1')], 10, Buffer.from('c'));
  assert.equal(memo.size, 2);
  assert.equal(memo.get('A', [rec('1')], 10), undefined, 'the first one went');
  memo.set('A', [rec('1')], 11, Buffer.from('a'));
  assert.equal(memo.size, 1, 'a new second starts empty');
});
