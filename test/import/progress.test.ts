/**
 * The import's progress (src/import/progress.ts), on an injected clock: plain lines at most every
 * `every` ms when not a terminal, a bar redrawn in place on one, a last line per table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Progress } from '../../src/import/progress.js';

function output(isTTY: boolean): { out: { write(t: string): void; isTTY: boolean; columns: number }; text: () => string } {
  let text = '';
  // the escape character shown as <ESC> (no control character in the regular expressions)
  return { out: { write: (t) => void (text += t), isTTY, columns: 200 }, text: () => text.replaceAll('\x1b', '<ESC>') };
}

test('not a terminal: a plain line every 10 s with done / total, rate and time left, then the last line', () => {
  let now = 0;
  const o = output(false);
  const p = new Progress(o.out, { now: () => now });
  p.start('ovms_historicalmessages', 1_000_000);
  now = 5_000;
  p.advance(100_000);
  assert.equal(o.text(), '', 'not yet: 5 s');
  now = 10_000;
  p.advance(100_000);
  assert.equal(o.text(), 'ovms_historicalmessages: 200,000 / 1,000,000 rows (20 %), 20,000 rows/s, about 40 s left\n');
  now = 50_000;
  p.advance(800_000);
  p.finish();
  assert.match(o.text(), /\novms_historicalmessages: 1,000,000 rows in 50 s \(20,000 rows\/s\)\n$/);
  assert.ok(!o.text().includes('\r'));
});

test('a terminal: a bar drawn in place, a skipped row said above it, cleared at the end', () => {
  let now = 0;
  const o = output(true);
  const p = new Progress(o.out, { now: () => now });
  p.start('ovms_cars', 100);
  now = 1_000;
  p.advance(50);
  assert.match(o.text(), /\r<ESC>\[Kovms_cars\s+\[#{12}\.{12}\] 50\/100 50%\s+50 rows\/s\s+ETA 1\.0 s$/);
  p.say('skipped a row of ovms_cars: x');
  assert.match(o.text(), /\r<ESC>\[Kskipped a row of ovms_cars: x\n\r<ESC>\[Kovms_cars\s+\[/);
  now = 2_000;
  p.advance(50);
  p.finish();
  assert.match(o.text(), /\r<ESC>\[Kovms_cars: 100 rows in 2\.0 s \(50 rows\/s\)\n$/);
});
