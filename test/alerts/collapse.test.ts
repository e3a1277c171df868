/**
 * Repeats collapse: the same text from the same car within 60 s is logged and pushed once (a car
 * sending a burst of one alert), while the car's `P` messages still reach its apps each time.
 * Another text, or another car, is not a repeat.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../mp/helpers.js';
import { alertHarness, sleep } from './helpers.js';

test('the same text from the same car within 60 s: one log entry, one push; every P still relayed to apps', async (t) => {
  const h = await alertHarness(t);
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
  for (let k = 0; k < 5; k++) car.send('P', 'AVehicle alarm is sounding!');
  car.send('P', 'AVehicle alarm stopped');
  const other = await h.car('DEMO1');
  other.send('P', 'AVehicle alarm is sounding!');
  await eventually(() => (heard.length === 6 ? true : undefined), 'six P at the app', 20_000);
  assert.deepEqual(heard.slice(0, 5), Array(5).fill('AVehicle alarm is sounding!'));
  await h.waitHooks(3);
  await sleep(1500);
  assert.deepEqual(
    h.hooks().map((x) => `${x.vehicleId}: ${x.text}`).sort(),
    ['DEMO1: Vehicle alarm is sounding!', 'TESTCAR: Vehicle alarm is sounding!', 'TESTCAR: Vehicle alarm stopped'],
  );
  const log = JSON.parse((await h.asDemo('/api/notifications/TESTCAR')).body) as { text: string }[];
  assert.deepEqual(log.map((r) => r.text), ['Vehicle alarm stopped', 'Vehicle alarm is sounding!']);
});
