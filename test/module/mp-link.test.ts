/**
 * The emulator's v2 link against a real `vts serve` (real sockets, real SQLite): the module logs in
 * as a car, its records are stored and reach an app client, commands round-trip (command 7 output
 * with CR line breaks and `;` for commas, vehicle actions that change the next records), a long
 * command blocks the link like the module's single network task, the module reconnects after
 * the server restarts, and with nothing listening it retries with back-off, says why in
 * `server v2 status` and logs each failure at warn level. The firmware's trip and grid logs go as
 * acknowledged `h` records at each ignition and charge state change.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/util/log.js';
import { MpClient, type MpMessage } from '../../src/mp-client/mp-client.js';
import { EmulatedModule } from '../../src/module/module.js';
import { startServer } from '../../src/server/server.js';
import { eventually } from '../mp/helpers.js';
import { freePort } from './module-cli.js';
import { startTestServer, type TestServer } from '../support/server.js';

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

async function setup(t: TestContext): Promise<{ srv: TestServer; mod: EmulatedModule }> {
  const srv = await startTestServer();
  const owner = await srv.addUser('demo', 'demopass');
  await srv.addVehicle('EMU0001', owner, 'NETPASS');
  const mod = new EmulatedModule({
    id: 'EMU0001',
    seed: 11,
    carPassword: 'NETPASS',
    adminPassword: 'admin',
    server: { host: '127.0.0.1', port: srv.mpPort },
    intervals: { connected: 5, idle: 60 },
    log: quiet,
  });
  t.after(async () => {
    await mod.stop();
    await srv.close().catch(() => undefined);
  });
  await mod.start();
  return { srv, mod };
}

async function app(port: number): Promise<MpClient> {
  return MpClient.connect({ host: '127.0.0.1', port, clientType: 'A', vehicleId: 'EMU0001', scheme: 0, password: 'NETPASS' });
}

/** Sends a command and returns the first `c` reply for its code. */
async function command(c: MpClient, request: string): Promise<string> {
  const code = request.split(',', 1)[0]!;
  c.send('C', request);
  const reply = await c.waitFor((m: MpMessage) => m.code === 'c' && m.data.split(',', 1)[0] === code, 10_000);
  return reply.data;
}

test('the module logs in, its records are stored and an app sees them', async (t) => {
  const { srv, mod } = await setup(t);
  await eventually(() => (mod.v2?.connected ? true : undefined), 'module login');
  const stored = await eventually(async () => {
    const codes = (await srv.server.store.getCarMessages('EMU0001')).map((m) => m.code).sort();
    return ['D', 'F', 'L', 'S', 'W', 'Y'].every((c) => codes.includes(c)) ? codes : undefined;
  }, 'the records stored');
  assert.ok(stored.length >= 6);
  const a = await app(srv.mpPort);
  t.after(() => a.close());
  const initial = await a.collect(300);
  assert.ok(initial.some((m) => m.code === 'S' && /^\d+(\.\d)?,K,/.test(m.data)), 'S replayed');
  await eventually(() => (mod.metrics.num('s.v2.peers') === 1 ? true : undefined), 'the module hears Z1');
});

test('command 7 runs a console command: c7,0,<output> with CR line breaks and ; for commas', async (t) => {
  const { srv, mod } = await setup(t);
  await eventually(() => (mod.v2?.connected ? true : undefined), 'module login');
  const a = await app(srv.mpPort);
  t.after(() => a.close());
  assert.equal(await command(a, '7,echo a,b c'), '7,0,a;b\rc\r');
  const stat = await command(a, '7,stat');
  assert.match(stat, /^7,0,/);
  assert.ok(!stat.slice(4).includes(',') && !stat.includes('\n'), 'no comma, no LF in the output');
  assert.match(stat, /SOC: \d+(\.\d)?%\r/);
});

test('vehicle commands change the car and the next records show it', async (t) => {
  const { srv, mod } = await setup(t);
  await eventually(() => (mod.v2?.connected ? true : undefined), 'module login');
  const a = await app(srv.mpPort);
  t.after(() => a.close());
  assert.equal(await command(a, '22,1234'), '22,0');
  assert.equal(mod.metrics.bool('v.e.locked'), false);
  assert.equal(await command(a, '20,1234'), '20,0');
  assert.equal(await command(a, '20'), '20,1', 'no pin');
  assert.equal(await command(a, '11'), '11,0');
  assert.equal(mod.metrics.bool('v.c.charging'), true);
  const d = await a.waitFor((m) => m.code === 'D' && (Number(m.data.split(',')[0]) & 0x10) !== 0, 15_000);
  assert.ok((Number(d.data.split(',')[1]) & 0x08) !== 0, 'locked bit set in the D the module sent');
  assert.equal(await command(a, '12'), '12,0');
  assert.equal(await command(a, '25'), '25,2', 'cooldown unsupported');
  assert.equal(await command(a, '99'), '99,2', 'unknown command');
  a.send('C', '1');
  const features = await a.waitFor((m) => m.code === 'c' && m.data.startsWith('1,0,31,32,'), 10_000);
  assert.ok(features, 'the last line of the multi-line feature list');
  const http = await fetch(`http://127.0.0.1:${srv.server.ports.http}/api/status/EMU0001?username=demo&password=demopass`);
  const status = (await http.json()) as Record<string, unknown>;
  assert.equal(typeof status.soc, 'string');
  assert.equal(status.carlocked, 8, 'the HTTP API shows the lock the module reported');
});

test('a long command blocks the link (one network task): a ping is answered only after it', async (t) => {
  const { srv, mod } = await setup(t);
  await eventually(() => (mod.v2?.connected ? true : undefined), 'module login');
  const a = await app(srv.mpPort);
  t.after(() => a.close());
  const car = mod.v2!;
  a.send('C', '7,sleep 1');
  a.send('C', '7,echo after');
  const replies = [
    await a.waitFor((m) => m.code === 'c' && m.data.startsWith('7,'), 10_000),
    await a.waitFor((m) => m.code === 'c' && m.data.startsWith('7,'), 10_000),
  ];
  assert.deepEqual(
    replies.map((r) => r.data),
    ['7,0,', '7,0,after\r'],
    'the second command waited for the first',
  );
  assert.ok(car.connected);
});

test('the module reconnects after the server restarts', async (t) => {
  const { srv, mod } = await setup(t);
  await eventually(() => (mod.v2?.connected ? true : undefined), 'module login');
  const port = srv.mpPort;
  const dataDir = srv.dataDir;
  await srv.server.close();
  await eventually(() => (mod.v2?.connected ? undefined : true), 'the module notices the drop');
  const again = await startServer(
    { dataDir, database: srv.database, bind: '127.0.0.1', mpPort: port, mpTlsPort: 0, httpPort: 0, httpsPort: 0 },
    quiet,
  );
  try {
    await eventually(() => (mod.v2?.connected ? true : undefined), 'the module logs in again', 15_000);
    await eventually(() => (again.hub.counts('EMU0001').net === 1 ? true : undefined), 'the server sees the car');
  } finally {
    await again.close(); // before the test's server removes the database (its after hook)
  }
});

test('nothing listening: the v2 link says why it waits and when it retries, logs each failure at warn, and stops on stop()', async (t) => {
  const port = await freePort();
  const lines: Record<string, unknown>[] = [];
  const log = createLogger('info', new Writable({ write: (c: Buffer, _e, cb) => (lines.push(...c.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)), cb()) }));
  const mod = new EmulatedModule({
    id: 'EMU0009',
    seed: 1,
    carPassword: 'Car-Secret',
    adminPassword: 'admin',
    server: { host: '127.0.0.1', port },
    reconnect: { minMs: 50, maxMs: 200 },
    log,
  });
  t.after(() => mod.stop());
  await mod.start();
  const failed = await eventually(() => {
    const f = lines.filter((l) => l.msg === 'v2 link connection failed');
    return f.length >= 3 ? f : undefined;
  }, 'three failed attempts');
  for (const l of failed) {
    assert.equal(l.level, 40, 'warn');
    assert.equal(l.code, 'MP_CONNECT_FAILED');
    assert.match(String(l.reason), /ECONNREFUSED/);
    assert.ok(typeof l.retryInMs === 'number' && l.retryInMs <= 200, 'the delay, capped');
  }
  const out = await eventually(async () => {
    const s = await mod.runner.execute('server v2 status');
    return s.startsWith('State: Waiting') ? s : undefined;
  }, 'the waiting state');
  assert.match(out, /^State: Waiting\n {7}Error: Connection failed\. Retrying in [01] second\(s\)\n$/);
  assert.ok(!lines.some((l) => JSON.stringify(l).includes('Car-Secret')), 'no password in a log line');
  await mod.stop();
  assert.equal(await mod.runner.execute('server v2 status'), 'OVMS v2 server has not been started\n');
});

test('the firmware logs go as h records: a trip log at each ignition change, a grid log at each charge state change', async (t) => {
  const srv = await startTestServer();
  const owner = await srv.addUser('demo', 'demopass');
  await srv.addVehicle('EMU0001', owner, 'NETPASS');
  const mod = new EmulatedModule({
    id: 'EMU0001',
    seed: 11,
    carPassword: 'NETPASS',
    adminPassword: 'admin',
    server: { host: '127.0.0.1', port: srv.mpPort },
    speedup: 300,
    log: quiet,
  });
  t.after(async () => {
    await mod.stop();
    await srv.close().catch(() => undefined);
  });
  await mod.start();
  const trips = await eventually(
    async () => {
      const rows = await srv.server.store.getHistorical('EMU0001', '*-LOG-Trip', 0);
      return rows.length >= 2 ? rows : undefined;
    },
    'a drive begun and ended',
    30_000,
  );
  assert.ok(trips.every((r) => r.recordNumber === 1 && r.data.split(',').length === 36));
  assert.ok(Number(trips[1]!.data.split(',')[6]) > 0, 'the trip distance of the drive that ended');
  await eventually(() => (mod.v2?.connected ? true : undefined), 'connected');
  // (not while the car drives)
  await eventually(() => (mod.vehicle.chargeStart() === 'ok' ? true : undefined), 'a charge started', 30_000);
  const grids = await eventually(
    async () => {
      const rows = await srv.server.store.getHistorical('EMU0001', '*-LOG-Grid', 0);
      return rows.length >= 1 ? rows : undefined;
    },
    'the charge start logged',
    30_000,
  );
  assert.ok(grids.every((r) => r.recordNumber === 2 && r.data.split(',').length === 45));
  assert.equal(grids[0]!.data.split(',')[6], 'charging');
});
