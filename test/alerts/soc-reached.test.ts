/** soc-reached through a real server, an MP car and a webhook receiver: once per charge, crossed both ways. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alertHarness, events, sendSpaced, sleep, sRecord } from './helpers.js';

test('soc-reached: once per charge, when the SOC reaches the threshold while charging', async (t) => {
  const h = await alertHarness(t);
  const rule = await h.addRule({ kind: 'soc-reached', threshold: 80 });
  await sleep(500);
  const car = await h.car();
  await sendSpaced(car, [
    ['S', sRecord(60, 'charging')],
    ['S', sRecord(75, 'charging')],
    ['S', sRecord(81, 'charging')],
    ['S', sRecord(85, 'charging')],
  ]);
  const [hook] = await h.waitHooks(1);
  assert.equal(hook!.event, 'soc-reached');
  assert.equal(hook!.rule, rule.id);
  assert.equal(hook!.alertType, 'I');
  assert.equal(hook!.text, 'TESTCAR reached 81 % (190 km)');
  // down across the threshold and up again in the same charge: not again
  await sendSpaced(car, [
    ['S', sRecord(79, 'charging')],
    ['S', sRecord(82, 'charging')],
    ['S', sRecord(90, 'done')],
  ]);
  await sleep(1000);
  assert.deepEqual(events(h), ['soc-reached'], 'once per charge');
  // the next charge, plugged in below the threshold: again
  await sendSpaced(car, [
    ['S', sRecord(70, 'stopped')],
    ['S', sRecord(70, 'charging')],
    ['S', sRecord(80, 'charging')],
  ]);
  await h.waitHooks(2);
  assert.equal(h.hooks()[1]!.text, 'TESTCAR reached 80 % (190 km)');
  // a charge that starts above the threshold tells nothing new
  await sendSpaced(car, [
    ['S', sRecord(85, 'done')],
    ['S', sRecord(84, 'stopped')],
    ['S', sRecord(84, 'charging')],
    ['S', sRecord(86, 'charging')],
  ]);
  await sleep(1000);
  assert.deepEqual(events(h), ['soc-reached', 'soc-reached']);
});
