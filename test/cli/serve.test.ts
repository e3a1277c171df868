/** `vts serve` as a real child process: the listening line, options, graceful shutdown. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword } from '../../src/auth/password.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { openStore } from '../../src/store/open.js';
import { TLS_CERT, TLS_KEY } from '../support/server.js';
import { FREE_PORTS, listening, serveProcess, type Running } from './serve-process.js';

const serve = (args: string[], env: Record<string, string> = {}): Running => serveProcess(args, { env });
const ports = FREE_PORTS;

test('prints exactly one listening line (keys in order, null for what is off) and stops on SIGTERM with exit 0', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-serve-'));
  try {
    const r = serve(['--data-dir', dir, ...ports]);
    const line = await listening(r);
    assert.deepEqual(Object.keys(line), ['event', 'mp', 'mpTls', 'http', 'https', 'mqtt', 'mqtts', 'mqttWs']);
    assert.equal(line.event, 'listening');
    assert.ok(typeof line.mp === 'number' && line.mp > 0);
    assert.equal(line.mpTls, null, 'no certificate: no MP TLS listener');
    assert.ok(typeof line.http === 'number' && line.http > 0);
    assert.equal(line.https, null, 'no certificate: no HTTPS listener');
    assert.ok(typeof line.mqtt === 'number' && line.mqtt > 0, 'the embedded MQTT broker listens');
    assert.equal(line.mqtts, null, 'no certificate: no MQTT TLS listener');
    assert.equal(line.mqttWs, null, 'MQTT over WebSocket is off unless asked for');
    assert.ok(r.stderr.length > 0 && r.stderr.every((l) => JSON.parse(l)), 'logs are JSON lines on stderr');
    const started = Date.now();
    r.child.kill('SIGTERM');
    assert.equal(await r.exit, 0);
    assert.ok(Date.now() - started < 5000);
    assert.equal(r.stdout.length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--mqtt-port off (flag or environment): no broker, null in the listening line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-serve-'));
  try {
    const base = ['--mp-port', '0', '--http-port', '0', '--https-port', '0', '--mp-tls-port', '0'];
    const r = serve(['--data-dir', dir, ...base, '--mqtt-ws-port', 'off'], { VTS_MQTT_PORT: 'off' });
    const line = await listening(r);
    assert.equal(line.mqtt, null);
    assert.equal(line.mqttWs, null);
    r.child.kill('SIGTERM');
    assert.equal(await r.exit, 0);
    const ws = serve(['--data-dir', dir, ...ports, '--mqtt-ws-port', '0']);
    const wsLine = await listening(ws);
    assert.ok(typeof wsLine.mqttWs === 'number' && wsLine.mqttWs > 0);
    ws.child.kill('SIGTERM');
    assert.equal(await ws.exit, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with a certificate the MP TLS and HTTPS listeners start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-serve-'));
  try {
    const r = serve(['--data-dir', dir, ...ports, '--tls-cert', TLS_CERT, '--tls-key', TLS_KEY]);
    const line = await listening(r);
    assert.ok(typeof line.mpTls === 'number' && line.mpTls > 0);
    assert.ok(typeof line.https === 'number' && line.https > 0);
    assert.ok(typeof line.mqtts === 'number' && line.mqtts > 0);
    r.child.kill('SIGINT');
    assert.equal(await r.exit, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SIGTERM with connected clients: they are closed, buffered car data is committed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-serve-'));
  try {
    const store = await openStore(dir);
    const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
    await store.addVehicle({ id: 'TESTCAR', ownerId: owner.id, name: 'TESTCAR', carPassword: 'NETPASS' });
    await store.close();

    const r = serve(['--data-dir', dir, ...ports]);
    const { mp } = (await listening(r)) as { mp: number };
    const car = await MpClient.connect({ host: '127.0.0.1', port: mp, clientType: 'C', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
    const app = await MpClient.connect({ host: '127.0.0.1', port: mp, clientType: 'A', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
    await app.waitFor('T');
    car.send('S', '80,K,220,70,charging,standard,280,270');
    await app.waitFor('S'); // processed by the server; the write-behind has not necessarily run
    r.child.kill('SIGTERM');
    assert.equal(await r.exit, 0);
    await Promise.all([car.closed, app.closed]);

    const after = await openStore(dir);
    const msgs = await after.getCarMessages('TESTCAR');
    await after.close();
    assert.deepEqual(msgs.map((m) => [m.code, m.data]), [['S', '80,K,220,70,charging,standard,280,270']]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('precedence: flag over environment over config file over default', async () => {
  const root = mkdtempSync(join(tmpdir(), 'vts-serve-'));
  try {
    const config = join(root, 'vts.json');
    writeFileSync(config, JSON.stringify({ 'data-dir': join(root, 'from-file'), 'mp-port': 0, http_port_is_not_a_key: 1 }));
    // an unknown key is an error that names it
    const bad = serve(['--config', config]);
    assert.notEqual(await bad.exit, 0);
    assert.match(bad.stderr.join('\n'), /unknown key "http_port_is_not_a_key"/);

    writeFileSync(config, JSON.stringify({ 'data-dir': join(root, 'from-file'), mpPort: 0, 'http-port': 0 }));
    const cases: [string[], Record<string, string>, string][] = [
      [['--config', config], {}, 'from-file'],
      [['--config', config], { VTS_DATA_DIR: join(root, 'from-env') }, 'from-env'],
      [['--config', config, '--data-dir', join(root, 'from-flag')], { VTS_DATA_DIR: join(root, 'from-env') }, 'from-flag'],
    ];
    for (const [args, env, expected] of cases) {
      const r = serve([...args, '--mp-tls-port', '0', '--https-port', '0'], env);
      await listening(r);
      r.child.kill('SIGTERM');
      assert.equal(await r.exit, 0);
      assert.ok(existsSync(join(root, expected, 'vts.sqlite')), expected);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a port in use, a bad port and a lone --tls-cert give a clear error and a non-zero exit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vts-serve-'));
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
  const taken = (blocker.address() as { port: number }).port;
  try {
    const inUse = serve(['--data-dir', dir, '--mp-port', String(taken)]);
    assert.equal(await inUse.exit, 1);
    assert.ok(
      inUse.stderr.includes(`vts: port ${taken} (MP) is in use by another program: stop it or choose another port with --mp-port (VTS_ERR_PORT_IN_USE)`),
      inUse.stderr.join('\n'),
    );
    assert.equal(inUse.stdout.length, 0);

    const badPort = serve(['--data-dir', dir, '--mp-port', '70000']);
    assert.notEqual(await badPort.exit, 0);
    assert.match(badPort.stderr.join('\n'), /not a port number: 70000/);

    const loneCert = serve(['--data-dir', dir, '--mp-port', '0', '--tls-cert', TLS_CERT]);
    assert.equal(await loneCert.exit, 1);
    assert.match(loneCert.stderr.join('\n'), /--tls-cert and --tls-key must be given together/);
  } finally {
    blocker.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
