/** v12-low: the 12 V below the threshold for `after` seconds, once; a reading back above the threshold + 0.2 V re-arms it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alertHarness, dRecord, events, sendSpaced, sleep } from './helpers.js';

test('v12-low: not for a dip shorter than `after`; once for a long one; re-armed 0.2 V above', async (t) => {
  const h = await alertHarness(t);
  const rule = await h.addRule({ kind: 'v12-low', threshold: 12, after: 3 });
  await sleep(500);
  const car = await h.car();
  await sendSpaced(car, [
    ['D', dRecord(12.6)],
    ['D', dRecord(11.9)],
    ['D', dRecord(12.4)],
    ['D', dRecord(0)], // no sensor reading: ignored
  ]);
  await sleep(3500);
  assert.deepEqual(events(h), [], 'a dip of 1 s');
  await sendSpaced(car, [['D', dRecord(11.5)]]);
  const [hook] = await h.waitHooks(1);
  assert.deepEqual([hook!.event, hook!.rule, hook!.alertType, hook!.text], ['v12-low', rule.id, 'A', 'TESTCAR: 12 V battery at 11.5 V']);
  await sendSpaced(car, [
    ['D', dRecord(11.4)],
    ['D', dRecord(12.1)], // above the threshold, not 0.2 V above: still fired
    ['D', dRecord(11.6)],
  ]);
  await sleep(3500);
  assert.deepEqual(events(h), ['v12-low']);
  await sendSpaced(car, [
    ['D', dRecord(12.3)],
    ['D', dRecord(11.7)],
  ]);
  await h.waitHooks(2);
  assert.deepEqual(events(h), ['v12-low', 'v12-low']);
});
