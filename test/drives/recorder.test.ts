/**
 * The session recorder (src/drives/session-recorder.ts) with a real server, a real MP car and the
 * web API: what the owner sees after a scripted day is what a rebuild of the same records gives
 * (test/support/drive-records.ts `rebuild`), through a lost connection with late logs, a flapping
 * charge and a restart in the middle of a drive and of a charge; `vts sessions rebuild` afterwards
 * changes nothing, not even the ids.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { DriveJson, ChargeJson } from '../../src/core/drives/export.js';
import type { Session } from '../../src/core/drives/types.js';
import { rebuildSessions } from '../../src/cli/sessions.js';
import { ScriptedCar, rebuild } from '../support/drive-records.js';
import { connectCar, driveServer, play, type Clock, type DriveServer } from './helpers.js';

const DAY0 = 1_780_000_000;

/** The figures compared: those the owner reads. */
function driveFigures(d: DriveJson | Extract<Session, { session: 'drive' }>) {
  return { start: d.start, end: d.end, distance: d.distance, socStart: d.socStart, socEnd: d.socEnd, energyUsed: d.energyUsed, source: d.source };
}
function chargeFigures(c: ChargeJson | Extract<Session, { session: 'charge' }>) {
  const kind = 'kind' in c ? c.kind : c.chargeKind;
  return { start: c.start, end: c.end, socStart: c.socStart, socEnd: c.socEnd, energyAdded: c.energyAdded, energyFromGrid: c.energyFromGrid, kind, source: c.source };
}

function day(): ScriptedCar {
  const car = new ScriptedCar({ start: DAY0, soc: 70, logs: true });
  car.park(3600).drive(1500, 50).park(5400);
  // a drive that loses the connection half way: its logs arrive after the reconnection
  car.drive(1200, 60, 30, 600).park(1800).reconnect().park(1200);
  // an AC charge at home that flaps once
  car.charge(3000, 7, 60, 'type2', 1800, 40).park(3600);
  return car;
}

const path = (kind: 'drives' | 'charges', now: number) => `/api/${kind}/TESTCAR?from=${DAY0 - 86400}&to=${now + 86400}`;

/** After the day and 20 minutes more: the drives and charges the owner reads are those a rebuild of the day's records gives. */
async function assertAsRebuilt(s: DriveServer, clock: Clock, car: ScriptedCar): Promise<void> {
  const now = car.t + 1200;
  clock.t = now;
  await s.settle();
  const expected = rebuild(car.records.map((r) => r.input), now);
  assert.deepEqual((await s.json<DriveJson[]>(path('drives', now))).map(driveFigures), expected.list('drive').map(driveFigures));
  assert.deepEqual((await s.json<ChargeJson[]>(path('charges', now))).map(chargeFigures), expected.list('charge').map(chargeFigures));
}

/** The scripted day's car, connected to a fresh server on a clock of its own. */
async function dayOnServer(t: TestContext) {
  const car = day();
  const clock: Clock = { t: DAY0 };
  const s = await driveServer(t, clock);
  const mp = await connectCar(s);
  t.after(() => mp.close());
  return { car, clock, s, mp };
}

test('after a scripted day the owner sees the drives and charges a rebuild of the same records gives', async (t) => {
  const { car, clock, s, mp } = await dayOnServer(t);
  await play(s, mp, car.records);
  const now = car.t + 1200;
  clock.t = now;
  await s.settle();

  const expected = rebuild(car.records.map((r) => r.input), now);
  const drives = await s.json<DriveJson[]>(path('drives', now));
  const charges = await s.json<ChargeJson[]>(path('charges', now));
  assert.ok(drives.length >= 2, `drives: ${drives.length}`);
  assert.ok(charges.length >= 1, `charges: ${charges.length}`);
  assert.deepEqual(drives.map(driveFigures), expected.list('drive').map(driveFigures));
  assert.deepEqual(charges.map(chargeFigures), expected.list('charge').map(chargeFigures));
  assert.equal(charges.filter((c) => c.source !== 'inferred').length, 1, 'the flap is one charge');

  // a rebuild from the stored history changes nothing, ids included
  const { store } = s.t.server;
  await rebuildSessions(store, ['TESTCAR'], { write: () => true, isTTY: false } as unknown as NodeJS.WriteStream);
  assert.deepEqual(await s.json<DriveJson[]>(path('drives', now)), drives);
  assert.deepEqual(await s.json<ChargeJson[]>(path('charges', now)), charges);
});

test('a restart in the middle of a drive, then of a charge: the sessions continue, none is lost or doubled', async (t) => {
  const car = day();
  const clock: Clock = { t: DAY0 };
  const cuts = [DAY0 + 3600 + 700, DAY0 + 3600 + 1500 + 5400 + 1200 + 1800 + 1200 + 900];
  let s = await driveServer(t, clock);
  const first = s.t;
  let from = -Infinity;
  for (const cut of [...cuts, Infinity]) {
    const mp = await connectCar(s);
    await play(s, mp, car.records, from, cut);
    await mp.close();
    from = cut;
    if (cut === Infinity) break;
    // the recorder's checkpoint is older than the records: the new server feeds them again
    await s.t.server.close();
    s = await driveServer(t, clock, first);
  }
  await assertAsRebuilt(s, clock, car);
  // closed before the first server's clean-up drops its database
  await s.t.server.close();
});

test('with --sessions off nothing is recorded; vts sessions rebuild makes the sessions later', async (t) => {
  const car = new ScriptedCar({ start: DAY0, soc: 70 });
  car.park(600).drive(1200, 50).park(600);
  const clock: Clock = { t: DAY0 };
  const s = await driveServer(t, clock);
  // the recorder off: the car's records are only stored
  s.t.server.recorder!.close();
  const mp = await connectCar(s);
  t.after(() => mp.close());
  await play(s, mp, car.records);
  const now = car.t;
  assert.deepEqual(await s.json<DriveJson[]>(path('drives', now)), []);
  const made = await rebuildSessions(s.t.server.store, [], { write: () => true, isTTY: false } as unknown as NodeJS.WriteStream);
  assert.equal(made.drives, 1);
  const drives = await s.json<DriveJson[]>(path('drives', now));
  assert.deepEqual(drives.map(driveFigures), rebuild(car.records.map((r) => r.input), Math.floor(Date.now() / 1000)).list('drive').map(driveFigures));
});

test('a parked car whose tracker rested between its records (SessionRecorder.tickAll) ends with what a rebuild gives', async (t) => {
  const { car, clock, s, mp } = await dayOnServer(t);
  const recorder = s.t.server.recorder! as unknown as { tracks: Map<string, { tracker: { isResting: boolean } | null }> };
  // two moments while the car is parked, each more than a tick after its last record
  const quiet = [DAY0 + 1900, DAY0 + 3600 + 1500 + 2100];
  let from = -Infinity;
  let rested = 0;
  for (const at of [...quiet, Infinity]) {
    await play(s, mp, car.records, from, at);
    from = at;
    if (at === Infinity) break;
    clock.t = at;
    await s.settle();
    if (recorder.tracks.get('TESTCAR')?.tracker?.isResting) rested++;
  }
  assert.equal(rested, 2, 'the tracker rested at both moments');
  await assertAsRebuilt(s, clock, car);
});
