/** soc-reached through a real server, an MP car and a webhook receiver. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alertHarness, sleep, sRecord } from './helpers.js';

test('soc-reached: once per charge, when the SOC reaches the threshold while charging', async (t) => {
  const h = await alertHarness(t);
  const rule = await h.addRule({ kind: 'soc-reached', threshold: 80 });
  await sleep(500);
  const car = await h.car();
  for (const soc of [60, 75, 81, 85]) {
    car.send('S', sRecord(soc, 'charging'));
    await sleep(1100);
  }
  const [hook] = await h.waitHooks(1);
  assert.equal(hook!.event, 'soc-reached');
  assert.equal(hook!.rule, rule.id);
  assert.equal(hook!.text, 'TESTCAR reached 81 % (190 km)');
  await sleep(1500);
  assert.equal(h.hooks().length, 1, 'once');
});
