/**
 * `vts module --simulate day` against a real server, as a newcomer would try it: over the v2 link
 * (the day's S, D, L history and the firmware logs, out of order for the recorder: the vehicle is
 * rebuilt once they stop coming) and over MQTT (v3: the firmware logs alone), the owner finds the
 * day's three drives and two charges, the motorway charge a DC one.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/util/log.js';
import { EmulatedModule, type ModuleOptions } from '../../src/module/module.js';
import type { StoredCharge, StoredDrive } from '../../src/store/drives-store.js';
import { eventually } from '../mp/helpers.js';
import { startTestServer } from '../support/server.js';

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

async function simulate(t: TestContext, id: string, link: (ports: { mp: number; mqtt: number }) => Partial<ModuleOptions>, ready: (d: StoredDrive) => boolean) {
  const srv = await startTestServer({ mqtt: { port: 0, tlsPort: null, wsPort: null } });
  const owner = await srv.addUser('demo', 'demopass');
  await srv.addVehicle(id, owner, 'NETPASS');
  const mod = new EmulatedModule({
    id,
    seed: 5,
    carPassword: 'NETPASS',
    adminPassword: 'admin',
    simulate: 'day',
    log: quiet,
    ...link({ mp: srv.mpPort, mqtt: srv.server.ports.mqtt! }),
  } as ModuleOptions);
  t.after(async () => {
    await mod.stop();
    await srv.close().catch(() => undefined);
  });
  await mod.start();
  const store = srv.server.store;
  const day = await eventually(
    async () => {
      const drives: StoredDrive[] = await store.drives.listDrives(id, 0, 4e9);
      const charges: StoredCharge[] = await store.drives.listCharges(id, 0, 4e9);
      const ended = drives.filter((d) => d.end !== null && d.source === 'log' && ready(d));
      return ended.length >= 3 && charges.filter((c) => c.end !== null && c.source === 'log').length >= 2 ? { drives, charges } : undefined;
    },
    'the day’s drives and charges',
    60_000,
  );
  return day;
}

function check(day: { drives: StoredDrive[]; charges: StoredCharge[] }): void {
  const distances = day.drives.filter((d) => d.end !== null).map((d) => d.distance ?? 0);
  assert.equal(distances.length, 3, JSON.stringify(distances));
  assert.ok(distances.every((d) => d > 20 && d < 90), JSON.stringify(distances));
  const kinds = day.charges.filter((c) => c.end !== null && c.source !== 'inferred').map((c) => c.chargeKind);
  assert.deepEqual(kinds, ['ac', 'dc']);
  const dc = day.charges.find((c) => c.chargeKind === 'dc')!;
  assert.ok((dc.energyAdded ?? 0) > 15, `DC energy ${dc.energyAdded}`);
}

test('over the v2 link: the simulated day becomes three drives and an AC and a DC charge', async (t) => {
  // the day's S, D, L came as history, out of order for the recorder: the vehicle is rebuilt, and the
  // live figures (route, top speed) join the logs' drives
  const day = await simulate(t, 'SIMV2', ({ mp }) => ({ server: { host: '127.0.0.1', port: mp }, reconnect: { minMs: 100, maxMs: 200 } }), (d) => d.maxSpeed !== null);
  check(day);
});

test('over MQTT (v3): the firmware logs alone make the same sessions', async (t) => {
  const day = await simulate(t, 'SIMV3', ({ mqtt }) => ({ carPassword: '', mqtt: { url: `mqtt://127.0.0.1:${mqtt}`, username: 'demo', password: 'demopass' } }), () => true);
  check(day);
});
