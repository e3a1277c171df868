/** soc-below: once when the SOC falls below the threshold while not charging; never while charging; re-armed one point above. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alertHarness, events, sendSpaced, sleep, sRecord } from './helpers.js';
import { eventually } from '../mp/helpers.js';

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

test('an alert (A) reaches the app connected then as PA; two rules that say the same at once are pushed once', async (t) => {
  const h = await alertHarness(t);
  // the same rule twice (an owner who clicked twice): the same text at the same moment
  const first = await h.addRule({ kind: 'soc-below', threshold: 30 });
  await h.addRule({ kind: 'soc-below', threshold: 30 });
  await sleep(500);
  const app = await h.client('A');
  const heard: string[] = [];
  void (async () => {
    for (;;) {
      const m = await app.next().catch(() => null);
      if (!m) return;
      if (m.code === 'P') heard.push(m.data);
    }
  })();
  const car = await h.car();
  await sendSpaced(car, [['S', sRecord(40, 'stopped')], ['S', sRecord(25, 'stopped', 60)]]);
  const [hook] = await h.waitHooks(1);
  assert.deepEqual([hook!.event, hook!.rule, hook!.alertType, hook!.text], ['soc-below', first.id, 'A', 'TESTCAR is down to 25 % (50 km)']);
  await eventually(() => (heard.includes('ATESTCAR is down to 25 % (50 km)') ? true : undefined), 'the app hears PA', 20_000);
  await sleep(1500);
  assert.equal(h.hooks().length, 1, 'the repeat is pushed once');
  assert.deepEqual(heard.filter((p) => p.includes('down to 25')), ['ATESTCAR is down to 25 % (50 km)'], 'and sent to the app once');
  const log = JSON.parse((await h.asDemo('/api/notifications/TESTCAR')).body) as { text: string; event: string | null }[];
  assert.deepEqual(log.filter((n) => n.event !== null).map((n) => n.text), ['TESTCAR is down to 25 % (50 km)'], 'and logged once');
});
