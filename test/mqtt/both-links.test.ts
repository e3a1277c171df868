/**
 * A module on both links at once: one vehicle, online while either link is; commands go
 * over v2 unless `commandLink: 'mqtt'` says otherwise, and over the remaining link when one drops;
 * v3 records are kept as history like a v2 car's messages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/util/log.js';
import { EmulatedModule } from '../../src/module/module.js';
import { eventually } from '../mp/helpers.js';
import { mqttHarness, type MqttHarness } from './harness.js';

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

async function bothLinks(h: MqttHarness, id: string): Promise<EmulatedModule> {
  const mod = new EmulatedModule({
    id,
    seed: 3,
    carPassword: 'NETPASS',
    adminPassword: 'admin',
    server: { host: '127.0.0.1', port: h.t.mpPort },
    mqtt: { url: h.brokerUrl, username: h.user, password: h.password, minBackoffMs: 200 },
    log: quiet,
  });
  await mod.start();
  await eventually(() => {
    const link = h.t.server.hub.link(id);
    return link?.car && link.v3 ? true : undefined;
  }, 'both links up', 10_000);
  return mod;
}

const run = (h: MqttHarness, id: string) =>
  h.t.server.commands.execute({ vehicleId: id, kind: 'shell', text: 'echo hi', caller: 'user:test', via: 'test' });

test('on both links, v2 carries commands; with the v2 link gone, MQTT does; the vehicle stays online', async (t) => {
  const h = await mqttHarness(t, 'embedded');
  const id = await h.vehicle();
  const mod = await bothLinks(h, id);
  t.after(() => mod.stop());
  const first = await run(h, id);
  assert.equal(first.transport, 'mp');
  assert.equal(first.output.trim(), 'hi');

  mod.setLink('v2', false);
  await eventually(() => (h.t.server.hub.link(id)?.car ? undefined : true), 'v2 link down');
  assert.equal(h.t.server.hub.counts(id).net, 1, 'still online on the v3 link');
  const second = await run(h, id);
  assert.equal(second.transport, 'mqtt');
  assert.equal(second.output.trim(), 'hi');

  // v3 records are logged to history like a car's messages
  const history = JSON.parse((await h.asUser(`/api/historical/${id}`)).body) as { h_recordtype: string }[];
  assert.ok(history.some((row) => row.h_recordtype === 'S'), JSON.stringify(history));
});

test('commandLink mqtt: MQTT carries commands when both links are up', async (t) => {
  const h = await mqttHarness(t, 'embedded', {}, { commandLink: 'mqtt' });
  const id = await h.vehicle();
  const mod = await bothLinks(h, id);
  t.after(() => mod.stop());
  assert.equal((await run(h, id)).transport, 'mqtt');
});
