/**
 * A car that sends several records of a type in one second (a module reporting a change at once,
 * a burst after reconnecting): the recorder sees them as the stored history keeps them, the last
 * of each type per second, so the owner's drives are those a rebuild of the history gives, and
 * `vts sessions rebuild` changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DriveJson } from '../../src/core/drives/export.js';
import type { SessionInput } from '../../src/core/drives/tracker.js';
import { rebuildSessions } from '../../src/cli/sessions.js';
import { rebuild, type Arriving } from '../support/drive-records.js';
import { connectCar, driveServer, play, type Clock } from './helpers.js';

const T = 1_780_000_000;
const S = (soc: number) => `${soc},K,0,0,stopped,standard,300,280,16,0,0,0,0,21`;
const D = (on: boolean, odo: number) => `${on ? 140 : 12},8,4,30,40,25,123,${odo}`;
const L = (lat: number, speed: number) => `${lat.toFixed(4)},-0.1000,90,20,1,1,${speed}`;

/** [second, code, data] in the order the car sends them. */
const SENT: [number, string, string][] = [
  [0, 'S', S(80)], [0, 'D', D(false, 10000)], [0, 'L', L(51, 0)],
  // ignition on, and the odometer already moved, in the same second; two positions
  [10, 'D', D(true, 10000)], [10, 'D', D(true, 10002)], [10, 'L', L(51.001, 20)], [10, 'L', L(51.002, 30)],
  [70, 'S', S(79)], [70, 'S', S(78.5)], [70, 'D', D(true, 10040)], [70, 'L', L(51.01, 60)],
  // ignition off last in its second, after a reading still on
  [130, 'D', D(true, 10080)], [130, 'L', L(51.02, 0)], [130, 'D', D(false, 10081)], [130, 'S', S(77)],
  [400, 'S', S(77)], [400, 'D', D(false, 10081)],
];

test('several records of a type in one second: the owner sees what a rebuild of the stored history gives', async (t) => {
  const records: Arriving[] = SENT.map(([s, code, data]) => ({ arrival: T + s, input: { code, time: T + s, data } }));
  const clock: Clock = { t: T };
  const s = await driveServer(t, clock);
  const mp = await connectCar(s);
  t.after(() => mp.close());
  await play(s, mp, records);
  const now = T + 1200;
  clock.t = now;
  await s.settle();

  // the history: the last record of each type in each second, read back S, D, L within a second
  const last = new Map<string, SessionInput>();
  for (const r of records) last.set(`${r.input.time}|${r.input.code}`, r.input);
  const rank = (c: string): number => 'SDL'.indexOf(c);
  const history = [...last.values()].sort((a, b) => a.time - b.time || rank(a.code) - rank(b.code));
  const expected = rebuild(history, now).list('drive');
  const path = `/api/drives/TESTCAR?from=${T - 86400}&to=${now + 86400}`;
  const drives = await s.json<DriveJson[]>(path);
  assert.equal(drives.length, 1);
  assert.deepEqual(
    drives.map((d) => [d.start, d.end, d.startOdometer, d.endOdometer, d.distance, d.socStart, d.socEnd, d.maxSpeed]),
    expected.map((d) => [d.start, d.end, d.startOdometer, d.endOdometer, d.distance, d.socStart, d.socEnd, d.maxSpeed]),
  );
  // what was sent first in a second and overwritten in the history counts for neither; the SOC
  // of the last second is read before its ignition-off
  assert.deepEqual(
    [drives[0]!.start, drives[0]!.end, drives[0]!.startOdometer, drives[0]!.endOdometer, drives[0]!.socEnd],
    [T + 10, T + 130, 1000.2, 1008.1, 77],
  );

  await rebuildSessions(s.t.server.store, ['TESTCAR'], { write: () => true, isTTY: false } as unknown as NodeJS.WriteStream);
  assert.deepEqual(await s.json<DriveJson[]>(path), drives);
});
