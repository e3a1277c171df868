/**
 * A parked car after a server restart (a reconnect storm is thousands of them): its tracker is
 * loaded from the checkpoint the old server left at its shutdown and catches up from the history,
 * and when its records change no session nothing is written for it until a checkpoint is due,
 * as in a running tracker. A car whose records do change a session gets its commit at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DriveJson } from '../../src/core/drives/export.js';
import { connectCar, driveServer, play, type Clock } from './helpers.js';
import type { Arriving } from '../support/drive-records.js';

const T = 1_780_000_000;
const S = (soc: number) => `${soc},K,0,0,stopped,standard,300,280,16,0,0,0,0,21`;
const D = (on: boolean, odo: number) => `${on ? 140 : 12},8,4,30,40,25,123,${odo}`;
const L = (lat: number, speed: number) => `${lat.toFixed(4)},-0.1000,90,20,1,1,${speed}`;
const at = (s: number, code: string, data: string): Arriving => ({ arrival: T + s, input: { code, time: T + s, data } });

/** Counts the tracker commits of a server's store from now on. */
function countCommits(store: { drives: { commitTracker: (...a: never[]) => Promise<number | null> } }): { n: number } {
  const count = { n: 0 };
  const original = store.drives.commitTracker.bind(store.drives);
  store.drives.commitTracker = (...a: never[]) => {
    count.n++;
    return original(...a);
  };
  return count;
}

test('after a restart a parked car costs no checkpoint write until one is due; a drive is committed at once', async (t) => {
  const clock: Clock = { t: T };
  let s = await driveServer(t, clock);
  const first = s.t;
  let mp = await connectCar(s);
  await play(s, mp, [at(0, 'S', S(80)), at(0, 'D', D(false, 10000)), at(0, 'L', L(51, 0))]);
  await mp.close();
  await s.t.server.close(); // checkpoints what it has

  // the new server: the car is back a few seconds later, still parked
  s = await driveServer(t, clock, first);
  const commits = countCommits(s.t.server.store);
  mp = await connectCar(s);
  t.after(() => mp.close());
  await play(s, mp, [at(8, 'S', S(80)), at(8, 'D', D(false, 10000)), at(8, 'L', L(51, 0))]);
  assert.equal(commits.n, 0, 'a parked car caught up after the restart: nothing to write');

  // it drives away: the open drive is written
  await play(s, mp, [at(20, 'D', D(true, 10000)), at(20, 'L', L(51.001, 20)), at(80, 'D', D(true, 10040)), at(80, 'L', L(51.01, 60))]);
  assert.ok(commits.n >= 1, `the drive's commit (${commits.n})`);
  await play(s, mp, [at(140, 'D', D(false, 10080)), at(140, 'L', L(51.02, 0)), at(140, 'S', S(77))]);
  clock.t = T + 1200;
  await s.settle();
  const drives = await s.json<DriveJson[]>(`/api/drives/TESTCAR?from=${T - 86400}&to=${T + 86400}`);
  assert.deepEqual(drives.map((d) => [d.start, d.end, d.startOdometer, d.endOdometer]), [[T + 20, T + 140, 1000, 1008]]);
  await s.t.server.close();
});
