/** LineSplitter (src/core/mp/line-splitter.ts): the framing of every MP byte stream. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineSplitter } from '../../src/core/mp/line-splitter.js';

function feed(s: LineSplitter, ...chunks: string[]): string[] {
  const out: string[] = [];
  for (const c of chunks) assert.ok(s.push(Buffer.from(c, 'utf8'), (line) => void out.push(line)));
  return out;
}

test('LF ends a line, one CR before it is dropped, other CRs stay; partial lines wait', () => {
  const s = new LineSplitter(1024);
  assert.deepEqual(feed(s, 'ab'), []);
  assert.deepEqual(feed(s, 'c\r\nde'), ['abc']);
  assert.deepEqual(feed(s, 'f\ng\r'), ['def']);
  assert.deepEqual(feed(s, '\n'), ['g']);
  assert.deepEqual(feed(s, 'x\r\r\n\n'), ['x\r', '']);
  assert.deepEqual(feed(s, 'a\rb\n'), ['a\rb']);
  assert.equal(s.flush(), null);
  feed(s, 'tail\r');
  assert.equal(s.flush(), 'tail');
  assert.equal(s.flush(), null);
});

test('a multi-byte UTF-8 character split across chunks stays whole', () => {
  const s = new LineSplitter(1024);
  const bytes = Buffer.from('Zürich\n', 'utf8');
  const out: string[] = [];
  s.push(bytes.subarray(0, 2), (l) => void out.push(l));
  s.push(bytes.subarray(2), (l) => void out.push(l));
  assert.deepEqual(out, ['Zürich']);
});

test('a line over the limit is refused, complete or not', () => {
  assert.equal(new LineSplitter(8).push(Buffer.from('123456789012\n'), () => {}), false);
  const s = new LineSplitter(8);
  assert.equal(s.push(Buffer.from('12345'), () => {}), true);
  assert.equal(s.push(Buffer.from('67890'), () => {}), false);
  assert.equal(new LineSplitter(8).push(Buffer.from('12345678\r\n'), () => {}), true);
});

test('the callback can stop the splitting (the connection closed)', () => {
  const s = new LineSplitter(64);
  const out: string[] = [];
  s.push(Buffer.from('a\nb\nc\n'), (l) => {
    out.push(l);
    return l !== 'b';
  });
  assert.deepEqual(out, ['a', 'b']);
});
