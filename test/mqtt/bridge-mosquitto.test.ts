/**
 * The bridge on an external broker: vts connects to the Mosquitto of this machine
 * (127.0.0.1:1883, anonymous; skipped with one line when it is missing, and a failure under
 * `.ci/run`, which starts it: test/support/services.ts) as
 * a client, as it would with `--mqtt-url`. The emulator on Mosquitto shows up in /api/status and to
 * an MP app client, runs commands from the JSON API, and its last will makes it offline. Each test
 * uses its own user name (so its own topics) and cleans the retained topics it left.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatFixed } from '../../src/core/metrics/format.js';
import { Hub } from '../../src/hub/hub.js';
import { MqttBridge } from '../../src/mqtt/bridge.js';
import { ClientPort } from '../../src/mqtt/client-port.js';
import { eventually, readUntil } from '../mp/helpers.js';
import { mosquitto, needs } from '../support/services.js';
import { mqttHarness, type MqttHarness } from './harness.js';

const skip = await needs(mosquitto);

async function connected(h: MqttHarness, id: string): Promise<number | undefined> {
  const r = await h.asUser('/api/vehicles');
  assert.equal(r.status, 200, r.body);
  return (JSON.parse(r.body) as { id: string; v_net_connected: number }[]).find((v) => v.id === id)?.v_net_connected;
}

test('Mosquitto: the emulator shows up in /api/status and to an MP app client; its last will makes it offline', { skip }, async (t) => {
  const h = await mqttHarness(t, 'mosquitto');
  const id = await h.vehicle();
  const mod = await h.module(id);
  await eventually(async () => ((await connected(h, id)) === 1 ? true : undefined), 'v_net_connected 1', 10_000);
  const soc = formatFixed(mod.metrics.num('v.b.soc')!, 1);
  await eventually(async () => {
    const r = await h.asUser(`/api/status/${id}`);
    return (JSON.parse(r.body) as { soc?: string }).soc === soc ? true : undefined;
  }, '/api/status with the module SOC', 10_000);

  const app = await h.app(id);
  const initial = await readUntil(app, 'T');
  assert.deepEqual(initial[0], { code: 'Z', data: '1' });
  assert.ok(initial.some((m) => m.code === 'S' && m.data.startsWith(`${soc},K,`)), JSON.stringify(initial));
  // vts announces itself to the module while the app is there
  await eventually(() => (mod.metrics.num('s.v3.peers') === 1 ? true : undefined), 's.v3.peers 1', 10_000);

  await mod.stop(); // no DISCONNECT: Mosquitto publishes the will
  for (;;) {
    const m = await app.next();
    if (m.code === 'Z' && m.data === '0') break;
  }
  assert.equal(await connected(h, id), 0);
});

test('Mosquitto: commands over MQTT through the JSON API', { skip }, async (t) => {
  const h = await mqttHarness(t, 'mosquitto');
  const id = await h.vehicle();
  await h.module(id);
  await eventually(async () => ((await connected(h, id)) === 1 ? true : undefined), 'v_net_connected 1', 10_000);
  const post = (command: string, type = 'shell') =>
    h.asUser(`/api/command/${id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ command, type }) });
  const r = await post('vehicle status');
  assert.equal(r.status, 200, r.body);
  assert.equal((JSON.parse(r.body) as { result: number }).result, 0);
  assert.deepEqual(JSON.parse((await post('26,1', 'mp')).body), { output: 'Climate Control \non', result: 0 });
});

test('Mosquitto: a restarted vts finds the online vehicle from the retained metrics', { skip }, async (t) => {
  const h = await mqttHarness(t, 'mosquitto');
  const id = await h.vehicle();
  await h.module(id);
  await eventually(async () => ((await connected(h, id)) === 1 ? true : undefined), 'v_net_connected 1', 10_000);
  // a second vts on the same data would be a restart; a second bridge on the same broker shows it
  const server = h.t.server;
  const hub = new Hub(server.store, server.hub.log, server.hub.options);
  const bridge = new MqttBridge(hub, server.store, new ClientPort({ url: 'mqtt://127.0.0.1:1883', log: server.hub.log }), server.hub.log, { clientId: 'vtsrestart' });
  try {
    await bridge.start();
    await eventually(() => (hub.counts(id).net === 1 ? true : undefined), 'online from the retained s/v3/connected', 10_000);
  } finally {
    await bridge.close(); // before the server (and its store) closes: its timers write to the store
  }
});
