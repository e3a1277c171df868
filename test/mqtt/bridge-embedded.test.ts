/**
 * A v3 vehicle through the embedded broker: the emulator on MQTT shows up in
 * `/api/vehicles` and `/api/status`, to an MP app client (Z1, records, P notifications, commands
 * as `C`), gets vts as a client while apps watch it, runs commands from the JSON API, and goes
 * offline with its last will.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatFixed } from '../../src/core/metrics/format.js';
import type { MpClient } from '../../src/mp-client/mp-client.js';
import { eventually, readUntil } from '../mp/helpers.js';
import { mqttHarness, type MqttHarness } from './harness.js';

async function vehicleRow(h: MqttHarness, id: string): Promise<Record<string, unknown> | undefined> {
  const r = await h.asUser('/api/vehicles');
  assert.equal(r.status, 200, r.body);
  return (JSON.parse(r.body) as Record<string, unknown>[]).find((v) => v.id === id);
}

async function online(h: MqttHarness, id: string, want: number): Promise<void> {
  await eventually(async () => ((await vehicleRow(h, id))?.v_net_connected === want ? true : undefined), `v_net_connected ${want}`, 10_000);
}

/** Reads messages until one matches. */
async function nextMatching(c: MpClient, ok: (code: string, data: string) => boolean): Promise<{ code: string; data: string }> {
  for (;;) {
    const m = await c.next();
    if (ok(m.code, m.data)) return m;
  }
}

test('the emulator on MQTT shows up in /api/vehicles and /api/status, with the values of its metrics', async (t) => {
  const h = await mqttHarness(t, 'embedded');
  const id = await h.vehicle();
  assert.equal((await vehicleRow(h, id))?.v_net_connected, 0);
  const mod = await h.module(id);
  await online(h, id, 1);
  const soc = formatFixed(mod.metrics.num('v.b.soc')!, 1);
  const status = await eventually(async () => {
    const r = await h.asUser(`/api/status/${id}`);
    return r.status === 200 && (JSON.parse(r.body) as { soc?: string }).soc === soc ? (JSON.parse(r.body) as Record<string, unknown>) : undefined;
  }, '/api/status with the module SOC');
  assert.equal(status.soc, soc);
  const odometer = Math.trunc(mod.metrics.num('v.p.odometer')! * 10);
  assert.equal(status.odometer, String(odometer), 'odometer ×10 from v.p.odometer, a string as for v2 cars');
  const location = JSON.parse((await h.asUser(`/api/location/${id}`)).body) as { latitude: string; longitude: string };
  assert.equal(location.latitude, formatFixed(mod.metrics.num('v.p.latitude')!, 6));
  assert.equal(location.longitude, formatFixed(mod.metrics.num('v.p.longitude')!, 6));
});

test('an MP app client sees the v3 vehicle: Z1, the rendered records, live changes and Z0 on the last will', async (t) => {
  const h = await mqttHarness(t, 'embedded');
  const id = await h.vehicle();
  const mod = await h.module(id);
  await online(h, id, 1);
  const soc = formatFixed(mod.metrics.num('v.b.soc')!, 1);
  await eventually(async () => ((JSON.parse((await h.asUser(`/api/status/${id}`)).body) as { soc?: string }).soc === soc ? true : undefined), 'status stored');
  const app = await h.app(id);
  const initial = await readUntil(app, 'T');
  assert.deepEqual(initial[0], { code: 'Z', data: '1' }, 'the vehicle is connected (on the v3 link)');
  const codes = new Set(initial.map((m) => m.code));
  for (const c of ['S', 'D', 'L', 'F', 'W', 'Y']) assert.ok(codes.has(c), `replay has ${c}: ${[...codes].join('')}`);

  // a change on the module reaches the app as a fresh record
  mod.metrics.set('v.b.soc', 42.5, mod.now());
  await mod.runner.execute('server v3 update modified');
  const s = await nextMatching(app, (code, data) => code === 'S' && data.startsWith('42.5,'));
  assert.match(s.data, /^42\.5,K,/);

  // the last will (connection lost without DISCONNECT) makes the vehicle offline
  await mod.stop();
  await nextMatching(app, (code, data) => code === 'Z' && data === '0');
  await online(h, id, 0);
});

test('while an app watches, vts is a client of the module (client/vts/active); when it leaves, it says 0', async (t) => {
  const h = await mqttHarness(t, 'embedded');
  const id = await h.vehicle();
  const mod = await h.module(id);
  await online(h, id, 1);
  assert.equal(mod.metrics.num('s.v3.peers') ?? 0, 0);
  const watcher = await h.mqtt({ username: h.user, password: h.password });
  const seen: string[] = [];
  watcher.on('message', (topic, payload) => seen.push(`${topic}=${payload.toString()}`));
  await watcher.subscribeAsync(`ovms/${h.user}/${id}/client/vts/active`, { qos: 1 });
  const app = await h.app(id);
  await eventually(() => (mod.metrics.num('s.v3.peers') === 1 ? true : undefined), 's.v3.peers 1');
  await eventually(() => (seen.length === 1 ? true : undefined), 'the announcement');
  assert.deepEqual(seen, [`ovms/${h.user}/${id}/client/vts/active=1`]);
  await app.close();
  await eventually(() => (mod.metrics.num('s.v3.peers') === 0 ? true : undefined), 's.v3.peers 0');
  await eventually(() => (seen.length === 2 ? true : undefined), 'the farewell');
  assert.deepEqual(seen.slice(1), [`ovms/${h.user}/${id}/client/vts/active=0`]);

  // an API session registered with GET /api/vehicle counts too
  const r = await h.asUser(`/api/vehicle/${id}`);
  assert.equal(r.status, 200);
  await eventually(() => (mod.metrics.num('s.v3.peers') === 1 ? true : undefined), 's.v3.peers 1 for the API session');
});

test('commands over MQTT: the JSON API, the custom API and MP app commands (mapped to console commands)', async (t) => {
  const h = await mqttHarness(t, 'embedded');
  const id = await h.vehicle();
  const mod = await h.module(id);
  await online(h, id, 1);

  const r = await h.asUser(`/api/command/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ command: 'metrics list v.b.soc' }),
  });
  assert.equal(r.status, 200, r.body);
  const body = JSON.parse(r.body) as { output: string; result: number };
  assert.equal(body.result, 0);
  assert.match(body.output, /v\.b\.soc\s+[\d.]+%/);

  // an MP command given as such goes as its console equivalent (MP 20 lock → `lock <pin>`)
  const lock = await h.asUser(`/api/command/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ command: '20,1234', type: 'mp' }),
  });
  assert.equal(lock.status, 200, lock.body);
  assert.deepEqual(JSON.parse(lock.body), { output: 'Vehicle locked', result: 0 });
  assert.equal(mod.metrics.bool('v.e.locked'), true);

  // an MP app's command 7 and command 22 (unlock)
  const app = await h.app(id);
  await readUntil(app, 'T');
  app.send('C', '7,echo "hello, world"');
  const c7 = await nextMatching(app, (code) => code === 'c');
  assert.equal(c7.data, '7,0,hello; world\r', 'the output MP-encoded (LF → CR, comma → semicolon) as a v2 module sends it');
  app.send('C', '22,1234');
  assert.deepEqual(await nextMatching(app, (code) => code === 'c'), { code: 'c', data: '22,0' });
  assert.equal(mod.metrics.bool('v.e.locked'), false);
  // an MP function without a console equivalent: unimplemented
  app.send('C', '6');
  assert.deepEqual(await nextMatching(app, (code) => code === 'c'), { code: 'c', data: '6,3' });

  // the audit names the command as given
  const audit = JSON.parse((await h.asUser(`/api/command/${id}`)).body) as { command: string; result: string }[];
  assert.ok(audit.some((e) => e.command === '7,metrics list v.b.soc' && e.result === '0'), JSON.stringify(audit));
});

test('notifications and events become P messages for apps and are kept as history', async (t) => {
  const h = await mqttHarness(t, 'embedded');
  const id = await h.vehicle();
  const mod = await h.module(id);
  await online(h, id, 1);
  const app = await h.app(id);
  await readUntil(app, 'T');
  await mod.runner.execute('notify raise text info usr.test "Hello, v3"');
  const p = await nextMatching(app, (code, data) => code === 'P' && data.startsWith('IHello'));
  assert.equal(p.data, 'IHello; v3', 'MP-encoded as a v2 module sends it');
  await mod.runner.execute('notify raise text alert usr.alarm "Alarm!"');
  assert.equal((await nextMatching(app, (code, data) => code === 'P' && data.startsWith('A'))).data, 'AAlarm!');
  await mod.runner.execute('event raise usr.custom.thing');
  assert.equal((await nextMatching(app, (code, data) => code === 'P' && data.includes('usr.custom.thing'))).data, 'IEvent: usr.custom.thing');

  const history = await eventually(async () => {
    const r = await h.asUser(`/api/historical/${id}/*-Log-Notification`);
    const rows = JSON.parse(r.body) as { h_data: string }[];
    return rows.length >= 2 ? rows : undefined;
  }, 'notification history');
  assert.ok(history.some((row) => row.h_data === 'I,Hello; v3'), JSON.stringify(history));
  const events = JSON.parse((await h.asUser(`/api/historical/${id}/*-Log-Event`)).body) as { h_data: string }[];
  assert.ok(events.some((row) => row.h_data === 'usr.custom.thing'), JSON.stringify(events));
  assert.equal(events.filter((row) => row.h_data === 'usr.custom.thing').length, 1, 'an event is taken once (legacy and per-name topics)');
});
