/** offline and online: no alert for an outage shorter than `after`; one offline alert for a longer one, then one online alert. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../mp/helpers.js';
import { alertHarness, events, sleep, sRecord } from './helpers.js';

test('offline after `after` seconds without a link, once; online when it comes back', async (t) => {
  const h = await alertHarness(t);
  const rule = await h.addRule({ kind: 'offline', after: 3 });
  await sleep(500);
  let car = await h.car();
  car.send('S', sRecord(60, 'stopped'));
  await sleep(1200);
  // a short outage: back within 3 s
  await car.close();
  await sleep(1000);
  car = await h.car();
  await sleep(3500);
  assert.deepEqual(events(h), [], 'an outage of 1 s of 3, and a link that stays');
  await car.close();
  await eventually(() => (h.t.server.hub.linkKind('TESTCAR') === null ? true : undefined), 'the car gone');
  const [hook] = await h.waitHooks(1);
  assert.deepEqual([hook!.event, hook!.rule, hook!.alertType], ['offline', rule.id, 'A']);
  // the outage as long as it is when the wait ends: the 3 s, or a little more on a loaded machine
  const seconds = Number(/^TESTCAR has been offline for (\d+) s$/.exec(hook!.text)?.[1]);
  assert.ok(seconds >= 3 && seconds < 60, hook!.text);
  await sleep(3000);
  assert.deepEqual(events(h), ['offline'], 'once per outage');
  car = await h.car();
  const hooks = await h.waitHooks(2);
  assert.equal(hooks[1]!.event, 'online');
  assert.equal(hooks[1]!.rule, rule.id);
  assert.equal(hooks[1]!.alertType, 'I');
  assert.match(hooks[1]!.text, /^TESTCAR is online again after \d+ s$/);
  await sleep(1500);
  assert.deepEqual(events(h), ['offline', 'online']);
});
