/** soc-below: once when the SOC falls below the threshold while not charging; never while charging; re-armed one point above. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alertHarness, events, sendSpaced, sleep, sRecord } from './helpers.js';

test('soc-below: crossed both ways, once per fall, not while charging', async (t) => {
  const h = await alertHarness(t);
  const rule = await h.addRule({ kind: 'soc-below', threshold: 20 });
  await sleep(500);
  const car = await h.car();
  await sendSpaced(car, [
    ['S', sRecord(25, 'stopped')],
    ['S', sRecord(21, 'stopped')],
    ['S', sRecord(20, 'stopped')],
  ]);
  await sleep(1000);
  assert.deepEqual(events(h), [], 'at the threshold is not below it');
  await sendSpaced(car, [['S', sRecord(19, 'stopped', 45)]]);
  const [hook] = await h.waitHooks(1);
  assert.deepEqual([hook!.event, hook!.rule, hook!.alertType, hook!.text], ['soc-below', rule.id, 'A', 'TESTCAR is down to 19 % (35 km)']);
  // lower still, and back up to the threshold only: nothing; one point above re-arms it
  await sendSpaced(car, [
    ['S', sRecord(18, 'stopped')],
    ['S', sRecord(20, 'stopped')],
    ['S', sRecord(19, 'stopped')],
    ['S', sRecord(19, 'charging')],
    ['S', sRecord(21, 'charging')],
    ['S', sRecord(18, 'charging')],
  ]);
  await sleep(1000);
  assert.deepEqual(events(h), ['soc-below'], 'once; never while charging');
  await sendSpaced(car, [['S', sRecord(18, 'stopped')]]);
  await h.waitHooks(2);
  await sleep(1000);
  assert.deepEqual(events(h), ['soc-below', 'soc-below']);
});
