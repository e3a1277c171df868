/**
 * `--simulate day` over the v2 link against a real server (real sockets, real SQLite): every
 * history record of the day is acknowledged and stored at its past time (S, D, L and the two
 * firmware logs), before the live records; the live car goes on from the day's end; a refused
 * login fails the backfill, and `vts module --simulate day` then exits with the reason.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/util/log.js';
import { EmulatedModule } from '../../src/module/module.js';
import { eventually } from '../mp/helpers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { vtsModule } from './module-cli.js';

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

async function setup(t: TestContext, password = 'NETPASS'): Promise<{ srv: TestServer; mod: EmulatedModule; progress: number[] }> {
  const srv = await startTestServer();
  const owner = await srv.addUser('demo', 'demopass');
  await srv.addVehicle('EMU0001', owner, 'NETPASS');
  const progress: number[] = [];
  const mod = new EmulatedModule({
    id: 'EMU0001',
    seed: 5,
    carPassword: password,
    adminPassword: 'admin',
    server: { host: '127.0.0.1', port: srv.mpPort },
    reconnect: { minMs: 100, maxMs: 200 },
    simulate: 'day',
    onBackfillProgress: (acked) => progress.push(acked),
    log: quiet,
  });
  t.after(async () => {
    await mod.stop();
    await srv.close().catch(() => undefined);
  });
  await mod.start();
  return { srv, mod, progress };
}

test('the day is sent as acknowledged history and stored at its past times, then the car is live', async (t) => {
  const { srv, mod, progress } = await setup(t);
  const start = mod.now(); // the day's end (the module started a moment ago)
  const backfill = mod.simulated?.backfill;
  assert.ok(backfill);
  await backfill.done;
  assert.equal(backfill.acknowledged, backfill.total);
  assert.equal(progress.at(-1), backfill.total);
  const store = srv.server.store;
  const since = start - 86_400 - 60;
  const counts: Record<string, number> = {};
  for (const type of ['S', 'D', 'L', '*-LOG-Trip', '*-LOG-Grid']) {
    const rows = await store.getHistorical('EMU0001', type, since);
    const past = rows.filter((r) => r.time < start - 60);
    counts[type] = past.length;
    assert.ok(past.every((r) => r.time >= start - 86_400 - 5), `${type} within the day`);
  }
  assert.ok(counts.S! > 300 && counts.D! > 800 && counts.L! > 600, JSON.stringify(counts));
  assert.equal(counts['*-LOG-Trip'], 6);
  assert.equal(counts['*-LOG-Grid'], 4);
  const trips = await store.getHistorical('EMU0001', '*-LOG-Trip', since);
  assert.ok(trips.every((r) => r.recordNumber === 1 && r.data.split(',').length === 36));
  const grids = await store.getHistorical('EMU0001', '*-LOG-Grid', since);
  assert.ok(grids.every((r) => r.recordNumber === 2 && r.data.split(',').length === 45));
  assert.deepEqual(
    grids.map((r) => r.data.split(',')[6]),
    ['charging', 'done', 'charging', 'done'],
  );
  // a drive's D records carry the ignition bit, at driving pace (every 10 s)
  const ds = (await store.getHistorical('EMU0001', 'D', since)).filter((r) => (Number(r.data.split(',')[0]) & 0x80) !== 0);
  assert.ok(ds.length > 500);
  // then the live records, with the day's end state
  const live = await eventually(async () => {
    const s = (await store.getCarMessages('EMU0001')).find((m) => m.code === 'S');
    return s && s.time >= start - 5 ? s : undefined;
  }, 'the live S');
  const lastS = (await store.getHistorical('EMU0001', 'S', since)).filter((r) => r.time < start - 60).at(-1)!;
  assert.equal(live.data.split(',')[0], lastS.data.split(',')[0], 'live SOC = the day’s last');
});

test('a refused login fails the backfill with the reason', async (t) => {
  const { mod } = await setup(t, 'WRONGPASS');
  const backfill = mod.simulated?.backfill;
  assert.ok(backfill);
  await assert.rejects(backfill.done, (err: Error & { code?: string }) => err.code === 'VTS_ERR_AUTH' && /refused the login of EMU0001/.test(err.message));
});

test('vts module --simulate day reports its progress and exits with the reason when the login is refused', async (t) => {
  const srv = await startTestServer();
  t.after(() => srv.close().catch(() => undefined));
  const owner = await srv.addUser('demo', 'demopass');
  await srv.addVehicle('EMU0001', owner, 'NETPASS');
  const bad = vtsModule(['--mp', `127.0.0.1:${srv.mpPort}`, '--password', 'WRONG', '--simulate', 'day', '--log-level', 'silent'], t);
  assert.equal(await bad.exit, 1);
  assert.match(bad.stderr.join('\n'), /vts: .*refused the login of EMU0001.*\(VTS_ERR_AUTH\)/);
  const good = vtsModule(['--mp', `127.0.0.1:${srv.mpPort}`, '--password', 'NETPASS', '--simulate', 'day', '--log-level', 'silent'], t);
  await eventually(() => (good.stderr.some((l) => /^simulating a day: \d+ records sent and stored; the module is live$/.test(l)) ? true : undefined), 'the day stored', 120_000);
  assert.ok(good.stderr.some((l) => /^simulating a day: \d+ records sent…$/.test(l)));
  good.child.kill('SIGTERM');
  assert.equal(await good.exit, 0);
});

test('over MQTT (v3) only the firmware logs go, as notify/data with their ages, and are stored at their past times', async (t) => {
  const srv = await startTestServer({ mqtt: { port: 0, tlsPort: null, wsPort: null } });
  const owner = await srv.addUser('demo', 'demopass');
  await srv.addVehicle('EMU0002', owner, 'NETPASS');
  const mod = new EmulatedModule({
    id: 'EMU0002',
    seed: 5,
    carPassword: '',
    adminPassword: 'admin',
    mqtt: { url: `mqtt://127.0.0.1:${srv.server.ports.mqtt!}`, username: 'demo', password: 'demopass' },
    simulate: 'day',
    log: quiet,
  });
  t.after(async () => {
    await mod.stop();
    await srv.close().catch(() => undefined);
  });
  await mod.start();
  const start = mod.now();
  const store = srv.server.store;
  const logs = await eventually(
    async () => {
      const trips = await store.getHistorical('EMU0002', '*-LOG-Trip', 0);
      const grids = await store.getHistorical('EMU0002', '*-LOG-Grid', 0);
      return trips.length === 6 && grids.length === 4 ? { trips, grids } : undefined;
    },
    'the ten logs stored',
    30_000,
  );
  assert.ok([...logs.trips, ...logs.grids].every((r) => r.time < start - 60 && r.time >= start - 86_400 - 5));
  assert.ok(logs.trips.every((r) => r.recordNumber === 1 && r.data.split(',').length === 36));
  assert.ok(logs.grids.every((r) => r.recordNumber === 2 && r.data.split(',').length === 45));
  assert.equal((await store.getHistorical('EMU0002', 'L', 0)).filter((r) => r.time < start - 60).length, 0, 'no S/D/L history over MQTT');
});
