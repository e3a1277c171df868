/**
 * The embedded broker's security: logins with the vts password or an API token that
 * grants `v3` or `mqtt`, nothing else; topics only under `ovms/<user>/`; config read requests only
 * for the superuser; a client id cannot be taken by another user; a user cannot feed another
 * user's vehicle through its own prefix; TLS and WebSocket listeners use the same rules; an
 * over-large packet closes the connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { connectAsync, type MqttClient } from 'mqtt';
import { hashApiToken, newApiToken } from '../../src/auth/api-token.js';
import { eventually } from '../mp/helpers.js';
import { TLS_CERT, TLS_KEY } from '../support/server.js';
import { mqttHarness, type MqttHarness } from './harness.js';

/** The CONNACK return code of a refused login (0 when accepted). */
async function loginCode(url: string, opts: Record<string, unknown>): Promise<number> {
  try {
    const c = await connectAsync(url, { clean: true, reconnectPeriod: 0, connectTimeout: 5000, ...opts });
    await c.endAsync(true);
    return 0;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'number' ? code : -1;
  }
}

async function token(h: MqttHarness, permit: string): Promise<string> {
  const tok = newApiToken();
  await h.t.server.store.addApiToken({ ownerId: h.ownerId, tokenHash: hashApiToken(tok), application: 'test', purpose: 'mqtt', permit, created: 0, lastUsed: null });
  return tok;
}

/** The SUBACK codes (128 = refused; mqtt.js reports a refusal as an error that carries the SUBACK). */
async function suback(c: MqttClient, topics: string[]): Promise<{ topic: string; qos: number }[]> {
  let codes: number[];
  try {
    await c.subscribeAsync(topics, { qos: 1 });
    codes = topics.map(() => 1);
  } catch (err) {
    codes = (err as { packet?: { granted?: number[] } }).packet?.granted ?? [];
  }
  return topics.map((topic, k) => ({ topic, qos: codes[k] ?? -1 }));
}

const closed = (c: MqttClient): Promise<void> => new Promise((resolve) => (c.disconnected || !c.connected ? resolve() : c.once('close', () => resolve())));

test('logins: password or a token with v3/mqtt; wrong, missing or insufficient credentials are refused', async (t) => {
  const h = await mqttHarness(t, 'embedded');
  const url = h.brokerUrl;
  assert.equal(await loginCode(url, { username: 'demo', password: 'demopass' }), 0);
  assert.equal(await loginCode(url, { username: 'demo', password: 'wrong' }), 4, 'bad user name or password');
  assert.equal(await loginCode(url, { username: 'nobody', password: 'demopass' }), 4);
  assert.equal(await loginCode(url, {}), 4, 'anonymous');
  assert.equal(await loginCode(url, { username: 'demo', password: await token(h, 'v3') }), 0, 'token with v3');
  assert.equal(await loginCode(url, { username: 'demo', password: await token(h, 'mqtt,view') }), 0, 'token with mqtt');
  assert.equal(await loginCode(url, { username: 'demo', password: await token(h, 'view') }), 5, 'token without v3/mqtt: not authorised');
  assert.ok(
    h.t.logs.every((l) => !l.includes('demopass')),
    'no password in the logs',
  );
});

test('logins go through the login throttle: over the limit even the right password is refused unchecked', async (t) => {
  const h = await mqttHarness(t, 'embedded', {}, { loginLimits: { pair: { burst: 2, perMinute: 1 } } });
  const url = h.brokerUrl;
  assert.equal(await loginCode(url, { username: 'demo', password: 'wrong1' }), 4);
  assert.equal(await loginCode(url, { username: 'demo', password: 'wrong2' }), 4);
  assert.equal(await loginCode(url, { username: 'demo', password: 'demopass' }), 5, 'refused: not authorised');
  assert.ok(h.t.logs.some((l) => l.includes('MQTT login refused: too many failed logins')));
});

test('topics: a user reads and writes only under ovms/<user>/; config read requests are refused', async (t) => {
  const h = await mqttHarness(t, 'embedded');
  await h.t.addUser('eve', 'evepass');
  const c = await h.mqtt({ username: 'demo', password: 'demopass' });
  const granted = await suback(c, ['ovms/demo/#', 'ovms/demo/X/client/+/request/config', 'ovms/eve/#', 'ovms/+/X/metric/#', '#', '$SYS/#']);
  assert.deepEqual(
    granted.map((g) => [g.topic, g.qos]),
    [
      ['ovms/demo/#', 1],
      ['ovms/demo/X/client/+/request/config', 1],
      ['ovms/eve/#', 128],
      ['ovms/+/X/metric/#', 128],
      ['#', 128],
      ['$SYS/#', 128],
    ],
  );
  // a publish under the own prefix is delivered
  const got: string[] = [];
  c.on('message', (topic, payload) => got.push(`${topic}=${payload.toString()}`));
  await c.publishAsync('ovms/demo/X/client/me/active', '1', { qos: 1 });
  await eventually(() => (got.includes('ovms/demo/X/client/me/active=1') ? true : undefined), 'own publish');

  // another user's prefix: aedes closes the connection (MQTT 3.1.1 cannot refuse a publish)
  const eve = await h.mqtt({ username: 'eve', password: 'evepass' });
  await eve.publishAsync('ovms/demo/X/client/eve/command/1', 'lock 1234', { qos: 0 }).catch(() => undefined);
  await closed(eve);
  assert.ok(!got.some((m) => m.includes('eve')), 'nothing reached demo');

  // a config read request under the own prefix (the module would publish its passwords)
  const nosy = await h.mqtt({ username: 'demo', password: 'demopass' });
  await nosy.publishAsync('ovms/demo/X/client/me/request/config', 'password/server.v3', { qos: 0 }).catch(() => undefined);
  await closed(nosy);
  assert.ok(!got.some((m) => m.includes('request/config')));
  assert.ok(h.t.logs.some((l) => l.includes('MQTT publish denied')));
});

test('the superuser may use every topic, config requests included (the module may subscribe to them)', async (t) => {
  const h = await mqttHarness(t, 'embedded', {}, { mqttSuperuser: 'admin' });
  await h.t.addUser('admin', 'adminpass');
  const id = await h.vehicle();
  const mod = await h.module(id);
  await eventually(() => (h.t.server.hub.counts(id).net === 1 ? true : undefined), 'the module online');
  const admin = await h.mqtt({ username: 'admin', password: 'adminpass' });
  assert.deepEqual(
    (await suback(admin, ['ovms/#', '#'])).map((g) => g.qos),
    [1, 1],
  );
  const got: string[] = [];
  admin.on('message', (topic, payload) => got.push(`${topic}=${payload.toString()}`));
  await admin.publishAsync(`ovms/demo/${id}/client/admin/request/config`, 'vehicle/id', { qos: 1 });
  await eventually(() => (got.includes(`ovms/demo/${id}/client/admin/config/vehicle/id=${id}`) ? true : undefined), 'the module answered');
  assert.ok(admin.connected);
  assert.equal(mod.mqtt?.connected, true);
});

test('a client id belongs to its user while its session lives: another user cannot take it', async (t) => {
  const h = await mqttHarness(t, 'embedded');
  await h.t.addUser('eve', 'evepass');
  const module = await h.mqtt({ username: 'demo', password: 'demopass', clientId: 'DEMOCAR', clean: false });
  assert.equal(await loginCode(h.brokerUrl, { username: 'eve', password: 'evepass', clientId: 'DEMOCAR' }), 2, 'identifier rejected');
  assert.ok(module.connected, 'the module stays connected');
  await module.endAsync(true);
  // the persistent session is still the module's
  assert.equal(await loginCode(h.brokerUrl, { username: 'eve', password: 'evepass', clientId: 'DEMOCAR', clean: false }), 2);
  assert.equal(await loginCode(h.brokerUrl, { username: 'demo', password: 'demopass', clientId: 'DEMOCAR', clean: false }), 0);
});

test("one user cannot feed another user's vehicle through its own prefix", async (t) => {
  const h = await mqttHarness(t, 'embedded');
  const id = await h.vehicle();
  await h.t.addUser('eve', 'evepass');
  const eve = await h.mqtt({ username: 'eve', password: 'evepass', clientId: id });
  await eve.publishAsync(`ovms/eve/${id}/metric/s/v3/connected`, 'yes', { qos: 1, retain: true });
  await eve.publishAsync(`ovms/eve/${id}/metric/v/b/soc`, '12.5', { qos: 1, retain: true });
  // a marker through the bridge's own vehicle path shows the bridge has handled eve's messages
  const own = await h.mqtt({ username: 'demo', password: 'demopass' });
  await own.publishAsync(`ovms/demo/${id}/metric/v/b/soc`, '77.7', { qos: 1 });
  await eventually(async () => ((await h.t.server.store.getCarMessages(id)).some((m) => m.code === 'S' && m.data.startsWith('77.7,')) ? true : undefined), 'the owner\'s value');
  const s = (await h.t.server.store.getCarMessages(id)).find((m) => m.code === 'S');
  assert.match(s!.data, /^77\.7,/);
  assert.ok(h.t.logs.some((l) => l.includes('no such vehicle of that user')));
});

test('MQTT over TLS and over WebSocket, with the same logins and rules', async (t) => {
  const h = await mqttHarness(t, 'embedded', { tlsPort: 0, wsPort: 0 }, { tlsCert: TLS_CERT, tlsKey: TLS_KEY });
  const { mqtts, mqttWs } = h.t.server.ports;
  assert.ok(mqtts && mqttWs);
  // the test certificate is self-signed for localhost: trust it as the CA
  const overTls = await connectAsync(`mqtts://127.0.0.1:${mqtts}`, {
    username: 'demo',
    password: 'demopass',
    ca: readFileSync(TLS_CERT),
    servername: 'localhost',
    reconnectPeriod: 0,
  });
  const overWs = await connectAsync(`ws://127.0.0.1:${mqttWs}/mqtt`, { username: 'demo', password: 'demopass', reconnectPeriod: 0 });
  t.after(() => Promise.all([overTls.endAsync(true), overWs.endAsync(true)]));
  const got: string[] = [];
  overWs.on('message', (topic, payload) => got.push(`${topic}=${payload.toString()}`));
  assert.deepEqual((await suback(overWs, ['ovms/demo/#', 'ovms/eve/#'])).map((g) => g.qos), [1, 128]);
  await overTls.publishAsync('ovms/demo/X/metric/v/b/soc', '50', { qos: 1 });
  await eventually(() => (got.includes('ovms/demo/X/metric/v/b/soc=50') ? true : undefined), 'TLS publish seen over WebSocket');
  assert.equal(await loginCode(`ws://127.0.0.1:${mqttWs}/mqtt`, { username: 'demo', password: 'nope' }), 4);
  assert.equal(await loginCode(`mqtts://127.0.0.1:${mqtts}`, { username: 'demo', password: 'nope', rejectUnauthorized: false }), 4);
});

test('a packet larger than the limit closes the connection before its body is read; others go on', async (t) => {
  const h = await mqttHarness(t, 'embedded');
  const c = await h.mqtt({ username: 'demo', password: 'demopass' });
  const other = await h.mqtt({ username: 'demo', password: 'demopass' });
  await c.publishAsync('ovms/demo/X/metric/v/b/soc', 'x'.repeat(2 * 1024 * 1024), { qos: 0 }).catch(() => undefined);
  await closed(c);
  assert.ok(h.t.logs.some((l) => l.includes('MQTT packet too large')));
  await other.publishAsync('ovms/demo/X/metric/v/b/soc', '50', { qos: 1 });
  assert.ok(other.connected);
  // an unauthenticated peer announcing a huge CONNECT is cut off too
  const raw = netConnect(h.t.server.ports.mqtt!, '127.0.0.1');
  await new Promise<void>((resolve) => raw.once('connect', () => resolve()));
  raw.write(Buffer.from([0x10, 0xff, 0xff, 0xff, 0x7f]));
  await new Promise<void>((resolve) => raw.once('close', () => resolve()));
});
