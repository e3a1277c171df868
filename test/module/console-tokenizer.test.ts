/**
 * The console's line editor (src/module/console/tokenizer.ts, docs/protocol/commands.md §2.2): lines
 * split at LF, control characters dropped, backspace editing, the 799-byte line limit, and
 * microrl's tokenising with `"`/`'` quoting, its 10-quoted-token and 128-token limits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_LINE_BYTES, splitLines, tokenize } from '../../src/module/console/tokenizer.js';

test('spaces separate tokens; runs of spaces and leading/trailing spaces make no empty tokens', () => {
  assert.deepEqual(tokenize('metrics list v.b.soc'), ['metrics', 'list', 'v.b.soc']);
  assert.deepEqual(tokenize('  a   b  '), ['a', 'b']);
  assert.deepEqual(tokenize(''), []);
  assert.deepEqual(tokenize('   '), []);
});

test('a quoted token keeps its spaces; either quote character works, the other is literal inside', () => {
  assert.deepEqual(tokenize(`script eval "print('a b')"`), ['script', 'eval', "print('a b')"]);
  assert.deepEqual(tokenize(`echo 'say "hi"' x`), ['echo', 'say "hi"', 'x']);
  assert.deepEqual(tokenize('echo "" end'), ['echo', '', 'end']);
});

test('a quote inside an unquoted token is an ordinary character', () => {
  assert.deepEqual(tokenize(`echo it's a"b`), ['echo', "it's", 'a"b']);
});

test('bad quoting is refused: unterminated, or a closing quote followed by a character', () => {
  assert.equal(tokenize('echo "abc'), null);
  assert.equal(tokenize(`echo 'abc`), null);
  assert.equal(tokenize('echo "abc"def'), null);
  assert.deepEqual(tokenize('echo "abc" def'), ['echo', 'abc', 'def']);
});

test('at most 10 quoted tokens per line', () => {
  const q = (n: number): string => Array.from({ length: n }, (_, i) => `"${i}"`).join(' ');
  assert.deepEqual(tokenize(`echo ${q(10)}`)?.length, 11);
  assert.equal(tokenize(`echo ${q(11)}`), null);
});

test('a line needs fewer than 128 tokens', () => {
  const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
  assert.equal(tokenize(words(127))?.length, 127);
  assert.equal(tokenize(words(128)), null);
});

test('splitLines: LF separates lines, CR and other control characters vanish', () => {
  assert.deepEqual(splitLines('stat\n'), ['stat', '']);
  assert.deepEqual(splitLines('a\r\nb'), ['a', 'b']);
  assert.deepEqual(splitLines('ec\tho\x1b x'), ['echo x']);
});

test('splitLines: backspace and DEL delete the previous character; leading spaces are dropped', () => {
  assert.deepEqual(splitLines('echp\bo a\x7fb'), ['echo b']);
  assert.deepEqual(splitLines('   echo'), ['echo']);
});

test('splitLines: a line keeps its first 799 bytes (UTF-8), later characters are dropped', () => {
  assert.equal(splitLines('x'.repeat(1000))[0], 'x'.repeat(MAX_LINE_BYTES));
  // 399 two-byte characters fill 798 bytes; the next one would not fit, a one-byte one does
  const line = splitLines('é'.repeat(400) + 'a')[0] as string;
  assert.equal(line, 'é'.repeat(399) + 'a');
  assert.equal(Buffer.byteLength(line), MAX_LINE_BYTES);
});
