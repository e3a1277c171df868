/** MP message framing (src/core/mp/message.ts, docs/protocol/mp.md §4.5, §5.2, docs/protocol/messages.md §1, §5.3). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatScheme0, parseScheme0, parseScheme1, splitFields } from '../../src/core/mp/message.js';

test('parseScheme0: code and data', () => {
  assert.deepEqual(parseScheme0('MP-0 Z0'), { code: 'Z', data: '0' });
  assert.deepEqual(parseScheme0('MP-0 A'), { code: 'A', data: '' });
  assert.deepEqual(parseScheme0('MP-0 S80,K,220,70,charging,standard,280,270'), {
    code: 'S',
    data: '80,K,220,70,charging,standard,280,270',
  });
});

test('parseScheme0 keeps CR, LF and commas in the data (docs/protocol/messages.md §5.3, command 49)', () => {
  assert.deepEqual(parseScheme0('MP-0 c7,0,line 1\rline 2\r'), { code: 'c', data: '7,0,line 1\rline 2\r' });
  assert.deepEqual(parseScheme0('MP-0 c49,0,AT+CSQ\n+CSQ: 20,99\n\nOK\n'), {
    code: 'c',
    data: '49,0,AT+CSQ\n+CSQ: 20,99\n\nOK\n',
  });
  assert.deepEqual(parseScheme0('MP-0 L,,,'), { code: 'L', data: ',,,' });
});

test('parseScheme0: one whitespace character between MP-0 and the code', () => {
  assert.deepEqual(parseScheme0('MP-0\tA'), { code: 'A', data: '' });
  assert.equal(parseScheme0('MP-0  A'), null);
});

test('parseScheme0 rejects plaintexts without the MP-0 prefix or without a code', () => {
  for (const p of ['', 'MP-0', 'MP-0 ', 'MP-0A', 'MP-1 A', 'mp-0 A', 'A', ' MP-0 A', 'MP-0 \nA']) {
    assert.equal(parseScheme0(p), null, JSON.stringify(p));
  }
});

test('parseScheme0: the code may be any non-blank character, also non-ASCII', () => {
  assert.deepEqual(parseScheme0('MP-0 ,x'), { code: ',', data: 'x' });
  assert.deepEqual(parseScheme0('MP-0 😀x'), { code: '😀', data: 'x' });
});

test('formatScheme0 is the inverse of parseScheme0', () => {
  assert.equal(formatScheme0('Z', '0'), 'MP-0 Z0');
  assert.equal(formatScheme0('a', ''), 'MP-0 a');
  assert.deepEqual(parseScheme0(formatScheme0('c', '7,0,a\rb')), { code: 'c', data: '7,0,a\rb' });
});

test('parseScheme1: bare <code><data> lines (§5.2)', () => {
  assert.deepEqual(parseScheme1('A'), { code: 'A', data: '' });
  assert.deepEqual(parseScheme1('C31'), { code: 'C', data: '31' });
  assert.deepEqual(parseScheme1('c7,0,a\rb'), { code: 'c', data: '7,0,a\rb' });
  assert.deepEqual(parseScheme1('c49,0,x\ny,z'), { code: 'c', data: '49,0,x\ny,z' });
  // A client that sends the MP-0 prefix anyway is read as code M, like REF does.
  assert.deepEqual(parseScheme1('MP-0 A'), { code: 'M', data: 'P-0 A' });
  assert.deepEqual(parseScheme1('😀x'), { code: '😀', data: 'x' });
});

test('parseScheme1 rejects empty lines and lines starting with whitespace', () => {
  for (const l of ['', ' ', ' A', '\tA', '\r', '\n']) assert.equal(parseScheme1(l), null, JSON.stringify(l));
});

test('splitFields splits at the first n commas; the last field keeps the rest', () => {
  assert.deepEqual(splitFields('a,b,c,d', 2), ['a', 'b', 'c,d']);
  assert.deepEqual(splitFields('a,b,c', 2), ['a', 'b', 'c']);
  assert.deepEqual(splitFields('a,b,', 2), ['a', 'b', '']);
  assert.deepEqual(splitFields(',,', 2), ['', '', '']);
  assert.deepEqual(splitFields('abc', 0), ['abc']);
  assert.deepEqual(splitFields('', 0), ['']);
});

test('splitFields returns null when there are fewer than n commas', () => {
  assert.equal(splitFields('a,b', 2), null);
  assert.equal(splitFields('', 1), null);
  assert.equal(splitFields('abc', 1), null);
});
