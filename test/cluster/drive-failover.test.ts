/**
 * Drives and charges across a failover (src/drives/session-recorder.ts): a car is driving (then,
 * in a second cluster, charging) on node A when A dies by SIGKILL; the car logs in on node B and
 * goes on until the session ends. The owner sees, through B's web API, exactly one drive (one
 * charge) that covers both halves: B's recorder continued from A's checkpoint and the stored
 * history since it, nothing was lost and nothing doubled. Real nodes on the real clock: the
 * records go out over a few seconds (one group per second), and the test waits on the store and
 * the API, never for a fixed time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChargeJson, DriveJson } from '../../src/core/drives/export.js';
import type { MpClient } from '../../src/mp-client/mp-client.js';
import { dData, lData, sData } from '../support/drive-records.js';
import { eventually, roundTrip } from '../mp/helpers.js';
import { skipCluster, startCluster, VEHICLE, type Cluster, type Node } from './harness.js';

/** Generous bounds of the polls: guards against a hang, not timing assertions. */
const WAIT = 30_000;

/** A day either side of now (the sessions are all of the last minute). */
function range(): string {
  const now = Math.floor(Date.now() / 1000);
  return `from=${now - 86_400}&to=${now + 86_400}`;
}

async function apiList<T>(node: Node, kind: 'drives' | 'charges'): Promise<T[]> {
  const res = await fetch(node.url(`/api/${kind}/${VEHICLE}?${range()}`));
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()) as T[];
}

/**
 * Plays the car's records, each group in a second of its own after the previous group's (the
 * server stamps records with its whole second, and the stored history keeps one record per type
 * and second, replayed in the order S, D, L within a second: so each group has at most one record
 * of each type, in that order). Waits until the node has handled each group (`A` → `a`), then
 * until the clock has passed that second.
 */
class Pacer {
  private last = 0;

  async play(car: MpClient, groups: readonly (readonly [string, string])[][]): Promise<void> {
    for (const group of groups) {
      while (Math.floor(Date.now() / 1000) <= this.last) await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
      for (const [code, data] of group) car.send(code, data);
      await roundTrip(car);
      this.last = Math.floor(Date.now() / 1000);
    }
  }
}

/** Waits until the last of these records is in the shared database (so none is lost with the node). */
async function stored(c: Cluster, code: string, data: string): Promise<void> {
  await eventually(async () => ((await c.store.getHistorical(VEHICLE, code, 0)).some((r) => r.data === data) ? true : undefined), `${code} ${data} stored`, WAIT);
}

/** Logs the car in on `node` and reads its `Z`. */
async function car(c: Cluster, node: Node): Promise<MpClient> {
  const mp = await c.mp(node, 'C');
  assert.equal((await mp.next()).code, 'Z');
  return mp;
}

test('kill -9 of the node in the middle of a drive: the car goes on through the other node, one drive covers both halves', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];

  const pacer = new Pacer();

  // first half, on A: 12345.0 → 12345.8 km, a second between the readings (0.4 km is a plausible step)
  const onA = await car(c, a);
  const lastOnA = dData({ ignition: true, odometer: 12345.8 });
  await pacer.play(onA, [
    [
      ['S', sData({ soc: 80 })],
      ['D', dData({ ignition: true, odometer: 12345 })],
      ['L', lData({ lat: 48.101, lon: 11.501, speed: 30 })],
    ],
    [
      ['D', dData({ ignition: true, odometer: 12345.4 })],
      ['L', lData({ lat: 48.102, lon: 11.502, speed: 40 })],
    ],
    [['D', lastOnA]],
  ]);
  // A's recorder showed the drive open once it had 0.1 km (a checkpoint with it, committed with the put) ...
  const open = await eventually(async () => {
    const drives = await c.store.drives.listDrives(VEHICLE, 0, 4e9);
    return drives.length > 0 ? drives : undefined;
  }, 'the open drive stored by A', WAIT);
  assert.equal(open.length, 1);
  assert.equal(open[0]!.end, null);
  // ... and the rest of the first half is in the history (not necessarily in the checkpoint)
  await stored(c, 'D', lastOnA);

  await a.kill();

  // second half, on B: 12345.8 → 12346.6 km, then the ignition goes off
  const onB = await car(c, b);
  await pacer.play(onB, [
    [
      ['D', dData({ ignition: true, odometer: 12346.2 })],
      ['L', lData({ lat: 48.103, lon: 11.503, speed: 50 })],
    ],
    [
      ['S', sData({ soc: 79 })],
      ['D', dData({ ignition: true, odometer: 12346.6 })],
      ['L', lData({ lat: 48.104, lon: 11.504, speed: 20 })],
    ],
    [['D', dData({ ignition: false, odometer: 12346.6 })]],
  ]);

  // the owner, on B: once the drive has ended (its last change), exactly one drive, both halves
  const drives = await eventually(async () => {
    const list = await apiList<DriveJson>(b, 'drives');
    return list.some((d) => d.end !== null) ? list : undefined;
  }, 'the ended drive in the API of B', WAIT);
  assert.equal(drives.length, 1, JSON.stringify(drives));
  const [drive] = drives as [DriveJson];
  assert.equal(drive.startOdometer, 12345);
  assert.equal(drive.endOdometer, 12346.6);
  assert.equal(drive.distance, 1.6);
  assert.equal(drive.socStart, 80);
  assert.equal(drive.socEnd, 79);
  assert.equal(drive.maxSpeed, 50);
  assert.equal(drive.id, open[0]!.id, 'the drive A showed open is the one that ended');
  // the route has the points of both nodes
  const res = await fetch(b.url(`/api/drives/${VEHICLE}/${drive.id}`));
  assert.equal(res.status, 200);
  const path = ((await res.json()) as DriveJson).path ?? [];
  assert.deepEqual(
    path.map((p) => p.lat),
    [48.101, 48.102, 48.103, 48.104],
  );
});

test('kill -9 of the node in the middle of a charge: the car goes on through the other node, one charge covers both halves', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];

  // first half, on A: from 50 % and 0 kWh to 52 % and 1.5 kWh
  const pacer = new Pacer();
  const onA = await car(c, a);
  const lastOnA = sData({ soc: 52, chargeState: 'charging', chargedKwh: 1.5, powerIn: 7 });
  await pacer.play(onA, [
    [['L', lData({ lat: 48.1, lon: 11.5, speed: 0 })]],
    [['S', sData({ soc: 50, chargeState: 'charging', chargedKwh: 0, powerIn: 7 })]],
    [['S', lastOnA]],
  ]);
  const open = await eventually(async () => {
    const charges = await c.store.drives.listCharges(VEHICLE, 0, 4e9);
    return charges.length > 0 ? charges : undefined;
  }, 'the open charge stored by A', WAIT);
  assert.equal(open.length, 1);
  assert.equal(open[0]!.end, null);
  await stored(c, 'S', lastOnA);

  await a.kill();

  // second half, on B: up to 55 % and 3.5 kWh, done; the car then drives off (which ends the charge at once)
  const onB = await car(c, b);
  await pacer.play(onB, [
    [['S', sData({ soc: 54, chargeState: 'charging', chargedKwh: 2.5, powerIn: 11 })]],
    [['S', sData({ soc: 55, chargeState: 'charging', chargedKwh: 3.5, powerIn: 7 })]],
    [['S', sData({ soc: 55, chargeState: 'done', chargedKwh: 3.5 })]],
    [['D', dData({ ignition: true, odometer: 12345 })]],
  ]);

  const charges = await eventually(async () => {
    const list = await apiList<ChargeJson>(b, 'charges');
    return list.some((ch) => ch.end !== null) ? list : undefined;
  }, 'the ended charge in the API of B', WAIT);
  assert.equal(charges.length, 1, JSON.stringify(charges));
  const [charge] = charges as [ChargeJson];
  assert.equal(charge.socStart, 50);
  assert.equal(charge.socEnd, 55);
  assert.equal(charge.energyAdded, 3.5);
  assert.equal(charge.maxPower, 11);
  assert.equal(charge.kind, 'ac');
  assert.equal(charge.id, open[0]!.id, 'the charge A showed open is the one that ended');
});
