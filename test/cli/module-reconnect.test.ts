/**
 * `vts module` never gives up on its servers, as a real module: the real CLI process, real vts
 * servers (MP and the embedded MQTT broker) on real sockets. A module started before its server
 * keeps retrying and connects once the server is up; modules survive a server restart on the same
 * port and data folder; a wrong password is retried and logged at warn level with the reason (no
 * password in any line) while the console shows the waiting state; SIGINT and SIGTERM stop the
 * modules and exit 0. The back-off is shortened with --reconnect-min/--reconnect-max; nothing here
 * asserts a duration, only events and log lines (the test timeout is the bound).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/util/log.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { freePort, vtsModule, WARN, type LogLine } from '../module/module-cli.js';
import { eventually } from '../mp/helpers.js';
import { startTestServer } from '../support/server.js';

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));
const FAST = ['--reconnect-min', '0.2', '--reconnect-max', '1'];
const TIMEOUT = { timeout: 90_000 };

/** Both of the vehicle's links are up on `server`: the MP car session and the v3 (MQTT) one. */
function bothUp(server: RunningServer, id: string): Promise<true> {
  return eventually(
    () => {
      const link = server.hub.link(id);
      return link?.car && link.v3 ? true : undefined;
    },
    `${id} on both links`,
    30_000,
  );
}

const is = (msg: string, link: 'v2' | 'v3') => (l: LogLine) => l.msg === msg && l.link === link && l.level === WARN;

test('a module started before the server keeps retrying, then connects once the server is up; SIGINT exits 0', TIMEOUT, async (t) => {
  const mpPort = await freePort();
  const mqttPort = await freePort();
  const m = vtsModule(
    [
      ...['--id', 'EARLY1', '--links', 'v2,mqtt', '--server', `127.0.0.1:${mpPort}`, '--password', 'NETPASS'],
      ...['--mqtt', `mqtt://127.0.0.1:${mqttPort}`, '--mqtt-user', 'demo', '--mqtt-password', 'demopass', ...FAST],
    ],
    t,
  );
  await m.started();
  const v2 = await m.waitLogs('two failed v2 connects', is('v2 link connection failed', 'v2'), 2);
  const v3 = await m.waitLogs('two failed v3 connects', is('v3 link connection failed', 'v3'), 2);
  for (const l of [...v2, ...v3]) {
    assert.match(String(l.reason), /ECONNREFUSED/, 'the reason is logged');
    assert.equal(typeof l.retryInMs, 'number', 'and the delay');
  }
  assert.equal(m.child.exitCode, null, 'still running while nothing listens');

  const srv = await startTestServer({ mpPort, mqtt: { port: mqttPort, tlsPort: null, wsPort: null } });
  t.after(() => srv.close());
  const owner = await srv.addUser('demo', 'demopass');
  await srv.addVehicle('EARLY1', owner, 'NETPASS');
  await bothUp(srv.server, 'EARLY1');
  await m.waitLogs('the v2 login', (l) => l.msg === 'v2 link connected');
  await m.waitLogs('the v3 login', (l) => l.msg === 'v3 link connected');

  m.child.kill('SIGINT');
  assert.equal(await m.exit, 0);
  await eventually(() => (srv.server.hub.link('EARLY1')?.online ? undefined : true), 'EARLY1 offline');
});

test('two modules survive a server restart (same port, same data) and connect again; SIGTERM exits 0', TIMEOUT, async (t) => {
  const mqttPort = await freePort();
  const first = await startTestServer({ mqtt: { port: mqttPort, tlsPort: null, wsPort: null } });
  const { dataDir, mpPort } = first;
  let current: RunningServer = first.server;
  t.after(async () => {
    await current.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });
  const owner = await first.addUser('demo', 'demopass');
  await first.addVehicle('RS0001', owner, 'NETPASS');
  await first.addVehicle('RS0002', owner, 'NETPASS');
  const m = vtsModule(
    [
      ...['--count', '2', '--id-prefix', 'RS', '--links', 'v2,mqtt', '--server', `127.0.0.1:${mpPort}`, '--password', 'NETPASS'],
      ...['--mqtt', `mqtt://127.0.0.1:${mqttPort}`, '--mqtt-user', 'demo', '--mqtt-password', 'demopass', ...FAST],
    ],
    t,
  );
  await m.started();
  await bothUp(current, 'RS0001');
  await bothUp(current, 'RS0002');

  await current.close();
  await m.waitLogs('both v2 links dropped', is('v2 link dropped', 'v2'), 2);
  await m.waitLogs('both v3 links dropped', is('v3 link dropped', 'v3'), 2);
  await m.waitLogs('a failed v2 reconnect while the server is down', is('v2 link connection failed', 'v2'));
  assert.equal(m.child.exitCode, null, 'still running while the server is down');

  current = await startServer(
    { dataDir, bind: '127.0.0.1', mpPort, mpTlsPort: 0, httpPort: 0, httpsPort: 0, writeBehindMs: 20, mqtt: { port: mqttPort, tlsPort: null, wsPort: null } },
    quiet,
  );
  await bothUp(current, 'RS0001');
  await bothUp(current, 'RS0002');

  m.child.kill('SIGTERM');
  assert.equal(await m.exit, 0);
  assert.ok(m.logs().some((l) => l.msg === 'modules stopped'), 'the modules were stopped before the exit');
});

test('a wrong password is retried and logged with the reason, the console shows the wait, no password is logged', TIMEOUT, async (t) => {
  const srv = await startTestServer({ mqtt: { port: 0, tlsPort: null, wsPort: null } });
  t.after(() => srv.close());
  const owner = await srv.addUser('demo', 'demopass');
  await srv.addVehicle('WRONG1', owner, 'NETPASS');
  const carPassword = 'Car-Secret-7';
  const mqttPassword = 'Mqtt-Secret-9';
  const m = vtsModule(
    [
      ...['--id', 'WRONG1', '--links', 'v2,mqtt,http', '--server', `127.0.0.1:${srv.mpPort}`, '--password', carPassword],
      ...['--mqtt', `mqtt://127.0.0.1:${srv.server.ports.mqtt!}`, '--mqtt-user', 'demo', '--mqtt-password', mqttPassword],
      ...['--apikey', 'adminpw', '--http-port', '0', ...FAST],
    ],
    t,
  );
  const started = await m.started();
  const v2 = await m.waitLogs('two refused v2 logins', is('v2 link login failed', 'v2'), 2);
  for (const l of v2) {
    assert.equal(l.code, 'MP_LOGIN_CLOSED');
    assert.match(String(l.reason), /closed the connection during login.*wrong vehicle id or password/);
    assert.equal(typeof l.retryInMs, 'number');
  }
  const v3 = await m.waitLogs('two refused v3 logins', is('v3 link login failed', 'v3'), 2);
  for (const l of v3) {
    assert.ok(l.refused === 4 || l.refused === 5, `CONNACK code ${String(l.refused)}`);
    assert.match(String(l.reason), /^Connection refused: (Bad username or password|Not authorized)$/);
  }
  const failed = srv.logs.filter((l) => l.includes('"msg":"login failed"') && l.includes('WRONG1'));
  assert.ok(failed.length >= 2, 'the server saw more than one attempt');

  const execute = async (command: string): Promise<string> => {
    const r = await fetch(`http://127.0.0.1:${started.modules[0]!.http!}/api/execute?apikey=adminpw&command=${encodeURIComponent(command)}`);
    return r.text();
  };
  await eventually(async () => {
    const s = await execute('server v2 status');
    return /^State: Waiting\n {7}Error: Login refused by the server \(wrong vehicle id or password\?\)\. Retrying in \d+ second\(s\)\n$/.test(s) ? s : undefined;
  }, 'the v2 waiting state', 30_000);
  await eventually(async () => {
    const s = await execute('server v3 status');
    return /^State: Waiting to reconnect \(\d+ second\(s\) remaining\)\n {7}Authentication error \(wrong user\/password\/client ID\)\n$/.test(s) ? s : undefined;
  }, 'the v3 waiting state', 30_000);

  assert.equal(m.child.exitCode, null, 'still running');
  for (const line of m.stderr) {
    assert.ok(!line.includes(carPassword) && !line.includes(mqttPassword), `a password in a log line: ${line}`);
  }
  m.child.kill('SIGTERM');
  assert.equal(await m.exit, 0);
});
