/** Paranoid wrappers (src/core/mp/paranoid.ts, docs/protocol/mp.md §10). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseParanoid } from '../../src/core/mp/paranoid.js';

test('ET<token> (transcripts §8 part 2)', () => {
  assert.deepEqual(parseParanoid('Tptok12345'), { kind: 'token', token: 'ptok12345' });
  assert.deepEqual(parseParanoid('TZYXWVUTSRQPONMLKJIHGFE'), { kind: 'token', token: 'ZYXWVUTSRQPONMLKJIHGFE' });
});

test('EM<code><payload>', () => {
  assert.deepEqual(parseParanoid('MSparanoid-payload'), { kind: 'message', innerCode: 'S', payload: 'paranoid-payload' });
  assert.deepEqual(parseParanoid('MSWgfZR/gh'), { kind: 'message', innerCode: 'S', payload: 'WgfZR/gh' });
  assert.deepEqual(parseParanoid('McABC='), { kind: 'message', innerCode: 'c', payload: 'ABC=' });
});

test('other sub-types and too-short data are dropped', () => {
  for (const d of ['', 'T', 'M', 'X12', 'tabc', 'mSabc', 'M abc', ' Tabc']) {
    assert.equal(parseParanoid(d), null, JSON.stringify(d));
  }
});

test(
  'data must have at least three characters after E (`<T|M><x><y…>`)',
  () => {
    assert.equal(parseParanoid('Ta'), null);
    assert.equal(parseParanoid('MS'), null);
  },
);
