/** drive-report: after a drive the car makes live (ignition on, odometer growing at a plausible pace, ignition off), one report. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alertHarness, dRecord, events, lRecord, sendSpaced, sleep } from './helpers.js';

test('drive-report: one report after each finished drive', async (t) => {
  const h = await alertHarness(t);
  const rule = await h.addRule({ kind: 'drive-report' });
  await sleep(500);
  const car = await h.car();
  await sendSpaced(car, [
    ['D', dRecord(12.5, false, 1000)],
    ['D', dRecord(12.5, true, 1000)],
    ['L', lRecord(52.5, 13.4, 40, 0)],
    ['D', dRecord(12.5, true, 1000.4)],
    ['L', lRecord(52.502, 13.401, 50, 0.1)],
    ['D', dRecord(12.5, true, 1000.8)],
    ['D', dRecord(12.5, true, 1001.2)],
    ['L', lRecord(52.503, 13.402, 0, 0.2)],
    ['D', dRecord(12.5, false, 1001.2)],
    ['L', lRecord(52.503, 13.402, 0, 0.2)],
  ]);
  const [hook] = await h.waitHooks(1);
  assert.equal(hook!.event, 'drive-report');
  assert.equal(hook!.rule, rule.id);
  assert.equal(hook!.alertType, 'I');
  assert.match(hook!.text, /^TESTCAR drove 1\.2 km in \d+ s, 0\.2 kWh \(167 Wh\/km\)$/);
  await sleep(2500);
  assert.deepEqual(events(h), ['drive-report'], 'once, though the drive is stored again');
});
