/**
 * `vts exec`'s words as a console line: the module's console (its microrl tokenizer) reads back
 * exactly the words given, spaces and quotes included; what it cannot read as one word is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { consoleLine } from '../../src/core/commands/console-words.js';
import { tokenize } from '../../src/module/console/tokenizer.js';

test('the console reads back the words: spaces, quotes at the start, inside, empty words', () => {
  const cases = [
    ['notify', 'raise', 'text', 'alert', 'charge.stopped', 'Charging stopped'],
    ['echo', "it's", 'say "hi"', "'quoted'", '"dq"', ''],
    ['config', 'set', 'vehicle', 'name', 'My car'],
  ];
  for (const words of cases) assert.deepEqual(tokenize(consoleLine(words)), words, consoleLine(words));
  assert.equal(consoleLine(['notify', 'raise', 'text', 'alert', 'charge.stopped', 'Charging stopped']), 'notify raise text alert charge.stopped "Charging stopped"');
  assert.equal(consoleLine(['echo', 'plain']), 'echo plain', 'no quotes where none are needed');
});

test('any words without both quote characters and at most 10 needing quotes come back as given', () => {
  const word = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '"', "'", '.', 'é'), maxLength: 8 }).filter((w) => !(w.includes('"') && w.includes("'")));
  fc.assert(
    fc.property(fc.array(word, { minLength: 2, maxLength: 10 }), (words) => {
      assert.deepEqual(tokenize(consoleLine(words)), words);
    }),
    { numRuns: 2000 },
  );
});

test('a word the console cannot read as one, and more than 10 quoted words, are refused with why', () => {
  assert.throws(() => consoleLine(['echo', `both " and ' here`]), /holds a space .* both " and ': the module's console cannot read it as one word/);
  assert.throws(() => consoleLine(['echo', ...Array.from({ length: 11 }, () => 'a b')]), /more than 10 words need quotes/);
});
