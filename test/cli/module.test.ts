/**
 * `vts module` as a real child process: it starts the emulated modules, prints one JSON line with
 * their ids and ports, connects them to a real server as cars (or over MQTT only, without a car
 * password), serves `/api/execute`, refuses incomplete options with a message that names the link
 * that needs the option, and stops on SIGTERM with exit 0. Reconnecting: module-reconnect.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vtsModule } from '../module/module-cli.js';
import { vts } from './admin-helpers.js';
import { eventually } from '../mp/helpers.js';
import { startTestServer } from '../support/server.js';

test('two modules connect as cars, serve /api/execute, and stop on SIGTERM', async (t) => {
  const srv = await startTestServer();
  const state = mkdtempSync(join(tmpdir(), 'vts-module-'));
  t.after(async () => {
    await srv.close();
    rmSync(state, { recursive: true, force: true });
  });
  const owner = await srv.addUser('demo', 'demopass');
  await srv.addVehicle('EMU0001', owner, 'NETPASS');
  await srv.addVehicle('EMU0002', owner, 'NETPASS');

  const m = vtsModule([
    '--mp', `127.0.0.1:${srv.mpPort}`, '--count', '2', '--id-prefix', 'emu', '--password', 'NETPASS',
    '--apikey', 'adminpw', '--links', 'v2,http', '--http-port', '0', '--state-dir', state, '--log-level', 'warn',
  ]);
  t.after(() => {
    if (m.child.exitCode === null) m.child.kill('SIGKILL');
  });
  const started = await m.started();
  assert.equal(started.event, 'started');
  assert.deepEqual(started.modules.map((x) => x.id), ['EMU0001', 'EMU0002']);
  assert.ok(started.modules.every((x) => typeof x.http === 'number' && x.http > 0 && x.ssh === null));

  await eventually(() => (srv.server.hub.counts('EMU0002').net === 1 ? true : undefined), 'EMU0002 connected', 15_000);
  const r = await fetch(`http://127.0.0.1:${started.modules[0]!.http!}/api/execute?apikey=adminpw&command=${encodeURIComponent('echo hello')}`);
  assert.equal(r.status, 200);
  assert.equal(await r.text(), 'hello\n');

  m.child.kill('SIGTERM');
  assert.equal(await m.exit, 0);
  await eventually(() => (srv.server.hub.counts('EMU0001').net === 0 ? true : undefined), 'EMU0001 gone');
});

test('the mqtt link alone needs no car password (README: "Try it"), and SIGTERM exits 0', async (t) => {
  const srv = await startTestServer({ mqtt: { port: 0, tlsPort: null, wsPort: null } });
  t.after(() => srv.close());
  const owner = await srv.addUser('demo', 'demopass');
  await srv.addVehicle('DEMO1', owner, 'NETPASS');
  const m = vtsModule(
    ['--id', 'DEMO1', '--links', 'mqtt', '--mqtt', `mqtt://127.0.0.1:${srv.server.ports.mqtt!}`, '--mqtt-user', 'demo', '--mqtt-password', 'demopass'],
    t,
  );
  await m.started();
  await eventually(() => (srv.server.hub.link('DEMO1')?.v3 ? true : undefined), 'DEMO1 on the v3 link', 30_000);
  assert.equal(srv.server.hub.link('DEMO1')?.car ?? null, null, 'no v2 link');
  m.child.kill('SIGTERM');
  assert.equal(await m.exit, 0);
});

test('a missing option is an error that names the link needing it; options of unused links are not required', async () => {
  const failures: [string[], RegExp][] = [
    [[], /--password \(or VTS_PASSWORD\), the vehicle's server password, is required with the v2 link/],
    [['--links', 'mqtt,v2', '--mqtt-user', 'u'], /--password .* is required with the v2 link/],
    [['--password', 'x', '--links', 'v2,http'], /--apikey .* is required with the http link/],
    [['--links', 'ssh', '--ssh-authorized-keys', '/dev/null'], /--apikey .* is required with the ssh link/],
    [['--password', 'x', '--links', 'v2,http,ssh'], /--apikey .* is required with the http and ssh links/],
    [['--links', 'ssh', '--apikey', 'k'], /--ssh-authorized-keys .* is required with the ssh link/],
    [['--links', 'mqtt'], /--mqtt-user .* is required with the mqtt link/],
    [['--password', 'x', '--links', 'v2,telepathy'], /unknown link telepathy/],
    [['--password', 'x', '--reconnect-min', '5', '--reconnect-max', '2'], /--reconnect-max \(2 s\) must not be below --reconnect-min \(5 s\)/],
    [['--password', 'x', '--reconnect-min', '0'], /reconnect-min/],
    // a URL where the MP server's host:port belongs: refused at once, not retried for ever
    [['--password', 'x', '--mp', 'http://127.0.0.1:6868'], /^vts: --mp is a URL: the module takes its v2 \(MP\) server as host:port, e\.g\. --mp 127\.0\.0\.1:6867 or VTS_MP=127\.0\.0\.1:6867 \(VTS_ERR_CONFIG\)$/m],
    [['--password', 'x', '--server', 'https://vts.example'], /--server is a URL: .* as host:port/],
    [['--password', 'x', '--mp', '127.0.0.1:99999'], /--mp is not a host\[:port\]/],
  ];
  // the checks run before anything starts: in this process (no child process each)
  for (const [args, message] of failures) {
    const r = await vts(['module', '--log-level', 'silent', ...args]);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, message, args.join(' '));
  }
});

test('a state dir that cannot hold folders (/proc) is one line and exit 1, not a spin', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-module-state-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'authorized_keys'), '');
  const m = vtsModule(
    ['--links', 'ssh', '--apikey', 'adminpass', '--ssh-authorized-keys', join(dir, 'authorized_keys'), '--ssh-port', '0', '--state-dir', '/proc/vts-x', '--log-level', 'warn'],
    t,
  );
  assert.equal(await m.exit, 1);
  assert.deepEqual(m.stderr, ['vts: cannot create /proc/vts-x/EMU0001 for the SSH host key (ENOENT): point --state-dir at a folder vts may write (VTS_ERR_DATA_DIR)']);
});
