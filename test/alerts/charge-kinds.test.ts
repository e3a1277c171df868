/**
 * charge-started, charge-done and charge-stopped on a real server with an MP car: a start after a
 * state that is not charging (never the first state seen), done once, a flap within `after` sends
 * nothing, a stop that lasts `after` sends one alert.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alertHarness, events, sendSpaced, sleep, sRecord } from './helpers.js';

test('charge-started and charge-done: each once per charge; the first state seen is no start', async (t) => {
  const h = await alertHarness(t);
  await h.addRule({ kind: 'charge-started' });
  await h.addRule({ kind: 'charge-done' });
  await sleep(500);
  const car = await h.car();
  await sendSpaced(car, [
    ['S', sRecord(40, 'charging')],
    ['S', sRecord(41, 'charging')],
  ]);
  await sleep(1000);
  assert.deepEqual(events(h), [], 'the server came in mid-charge: no start');
  await sendSpaced(car, [
    ['S', sRecord(80, 'done', 240)],
    ['S', sRecord(80, 'stopped')],
    ['S', sRecord(79, 'stopped')],
    ['S', sRecord(79, 'charging')],
    ['S', sRecord(90, 'charging')],
    ['S', sRecord(100, 'done', 300)],
    ['S', sRecord(100, 'done', 300)],
  ]);
  const hooks = await h.waitHooks(3);
  await sleep(1000);
  assert.deepEqual(events(h), ['charge-done', 'charge-started', 'charge-done']);
  assert.deepEqual(hooks.map((x) => [x.alertType, x.text]), [
    ['I', 'TESTCAR finished charging at 80 % (230 km)'],
    ['I', 'TESTCAR started charging at 79 %'],
    ['I', 'TESTCAR finished charging at 100 % (290 km)'],
  ]);
});

test('charge-stopped: a flap that resumes within `after` sends nothing; a stop that lasts sends one alert', async (t) => {
  const h = await alertHarness(t);
  const rule = await h.addRule({ kind: 'charge-stopped', after: 3 });
  await sleep(500);
  const car = await h.car();
  await sendSpaced(car, [
    ['S', sRecord(50, 'charging')],
    ['S', sRecord(51, 'stopped')],
    ['S', sRecord(51, 'charging')],
    ['S', sRecord(52, 'charging')],
  ]);
  await sleep(2500);
  assert.deepEqual(events(h), [], 'resumed after 1 s of 3');
  await sendSpaced(car, [['S', sRecord(53, 'stopped')]]);
  const [hook] = await h.waitHooks(1);
  assert.deepEqual([hook!.event, hook!.rule, hook!.alertType, hook!.text], ['charge-stopped', rule.id, 'A', 'TESTCAR: charging stopped at 53 % and did not resume']);
  await sleep(4000);
  assert.deepEqual(events(h), ['charge-stopped'], 'once per stop');
});
