/** The alert rules in words (web/src/alert-text.ts): sentences, times, the units of `after`, the field a server error names. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { afterInput, afterSeconds, afterText, eventLabel, fieldAt, KIND_INFO, KINDS, ruleSentence } from '../../web/src/alert-text.js';

const nbsp = (s: string) => s.replace(/\u00a0/g, ' ');
const names = (id: number) => (id === 4 ? 'Work' : null);
const say = (rule: Parameters<typeof ruleSentence>[0]) => nbsp(ruleSentence(rule, names));

test('each kind reads as a sentence with its settings', () => {
  assert.equal(say({ kind: 'soc-reached', threshold: 80 }), 'When the SOC reaches 80 % while charging');
  assert.equal(say({ kind: 'soc-below', threshold: 20 }), 'When the SOC falls below 20 % while not charging');
  assert.equal(say({ kind: 'charge-started' }), 'When a charge starts');
  assert.equal(say({ kind: 'charge-done' }), 'When a charge is done');
  assert.equal(say({ kind: 'charge-stopped', after: 120 }), 'When a charge stops before it is done and has not resumed within 2 min');
  assert.equal(say({ kind: 'offline', after: 3600 }), 'When the module has been offline for 1 h (and again when it is back online)');
  assert.equal(say({ kind: 'place-arrive', place: 4 }), 'When arriving at Work');
  assert.equal(say({ kind: 'place-leave', place: 4 }), 'When leaving Work');
  assert.equal(say({ kind: 'place-leave', place: 9 }), 'When leaving place #9 (no longer among your places)');
  assert.equal(say({ kind: 'v12-low', threshold: 11.8, after: 600 }), 'When the 12 V battery has stayed below 11.8 V for 10 min');
  assert.equal(say({ kind: 'drive-report' }), 'After each drive: its distance, duration, energy and efficiency');
});

test('every kind has a label, and its settings are the server’s (docs/alerts.md)', () => {
  assert.equal(KINDS.length, 10);
  for (const k of KINDS) assert.ok(KIND_INFO[k].label);
  assert.deepEqual(KIND_INFO['v12-low'].settings, ['threshold', 'after']);
  assert.deepEqual([KIND_INFO['charge-stopped'].after, KIND_INFO.offline.after, KIND_INFO['v12-low'].after], [120, 3600, 600]);
  assert.equal(eventLabel('online'), 'back online');
  assert.equal(eventLabel('soc-reached'), KIND_INFO['soc-reached'].label);
  assert.equal(eventLabel('something-new'), 'something-new');
});

test('times: in words, in the largest whole unit for the form, and back to seconds', () => {
  assert.deepEqual(
    [45, 120, 3600, 5400, 86400, 108000, 0].map((s) => nbsp(afterText(s))),
    ['45 s', '2 min', '1 h', '1 h 30 min', '1 d', '1 d 6 h', '0 s'],
  );
  assert.deepEqual(afterInput(120), { value: 2, unit: 'min' });
  assert.deepEqual(afterInput(5400), { value: 90, unit: 'min' });
  assert.deepEqual(afterInput(7200), { value: 2, unit: 'h' });
  assert.deepEqual(afterInput(172800), { value: 2, unit: 'd' });
  assert.deepEqual(afterInput(61), { value: 61, unit: 's' });
  assert.equal(afterSeconds('2', 'min'), 120);
  assert.equal(afterSeconds('1.5', 'h'), 5400);
  assert.equal(afterSeconds('30', 'd'), 2592000);
  assert.equal(afterSeconds('31', 'd'), null);
  assert.equal(afterSeconds('0', 's'), null);
  assert.equal(afterSeconds('', 'min'), null);
  assert.equal(afterSeconds('x', 'min'), null);
});

test('the field a server error names is the word it starts with', () => {
  const rule = ['kind', 'threshold', 'after', 'place'] as const;
  assert.equal(fieldAt('threshold must be a SOC in % from 0 to 100', rule), 'threshold');
  assert.equal(fieldAt('after must be a whole number of seconds from 1 to 2592000', rule), 'after');
  assert.equal(fieldAt('place must be the id of one of your places', rule), 'place');
  assert.equal(fieldAt('kind must be one of soc-reached, …', rule), 'kind');
  assert.equal(fieldAt('the body must be a JSON object', rule), null);
  assert.equal(fieldAt('placement is wrong', rule), null);
  assert.equal(fieldAt('timezone must be an IANA time zone such as Europe/Berlin', ['from', 'to', 'timezone'] as const), 'timezone');
  assert.equal(fieldAt('to must be a time HH:MM (00:00–23:59)', ['from', 'to', 'timezone'] as const), 'to');
});
