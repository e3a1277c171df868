/**
 * Quiet hours on a real server: an alert raised in them is in the notification log at once, marked
 * held, and reaches the webhook only when they end; the car's own alarm (`PA`) is not held, its
 * `PI` is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../mp/helpers.js';
import { alertHarness, json, sendSpaced, sleep, sRecord } from './helpers.js';

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60) % 24).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

interface LogRow {
  text: string;
  event: string | null;
  rule: number | null;
  heldUntil: number | null;
  deliveries: { state: string }[];
}

test('quiet hours hold alerts until they end; alarms go at once', async (t) => {
  const h = await alertHarness(t);
  // quiet hours (UTC) that began two hours ago and end at the next whole minute, at least 8 s away
  const now = Math.floor(Date.now() / 1000);
  const end = Math.ceil((now + 8) / 60) * 60;
  const endMinute = Math.floor(end / 60) % 1440;
  const set = await h.asDemo('/api/alerts', json('PUT', { quietHours: { from: hhmm((endMinute + 1440 - 120) % 1440), to: hhmm(endMinute), timezone: 'UTC' } }));
  assert.equal(set.status, 200, set.body);
  const rule = await h.addRule({ kind: 'soc-reached', threshold: 80 });
  await sleep(500);
  const car = await h.car();
  car.send('P', 'AVehicle alarm is sounding!');
  car.send('P', 'ICharging mode set');
  await sendSpaced(car, [
    ['S', sRecord(70, 'charging')],
    ['S', sRecord(80, 'charging')],
  ]);
  const log = await eventually(async () => {
    const rows = JSON.parse((await h.asDemo('/api/notifications/TESTCAR')).body) as LogRow[];
    return rows.length === 3 ? rows : undefined;
  }, 'three notifications in the log', 20_000);
  const alert = log.find((r) => r.event === 'soc-reached')!;
  assert.equal(alert.rule, rule.id);
  assert.equal(alert.heldUntil, end, 'held until the quiet hours end');
  assert.equal(log.find((r) => r.text === 'Charging mode set')!.heldUntil, end, "the car's information is held too");
  assert.equal(log.find((r) => r.text === 'Vehicle alarm is sounding!')!.heldUntil, null, 'an alarm is not held');

  const first = await h.waitHooks(1);
  assert.equal(first[0]!.text, 'Vehicle alarm is sounding!');
  assert.ok(Math.floor(Date.now() / 1000) < end, 'the test is still inside the quiet hours');
  await sleep(1000);
  assert.equal(h.hooks().length, 1, 'nothing else during the quiet hours');

  await sleep(Math.max(0, end * 1000 - Date.now()));
  const all = await h.waitHooks(3);
  assert.ok(Math.floor(Date.now() / 1000) >= end, 'released when they end');
  assert.deepEqual(all.slice(1).map((x) => x.event ?? x.text).sort(), ['Charging mode set', 'soc-reached']);
});
