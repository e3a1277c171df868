/**
 * The v3 metric topics of a v2 car on the embedded broker: what its records carry, retained,
 * published when it changes only, in km whatever the car's unit; a v3 car's own metrics are not
 * published again; `--mqtt-mirror off` publishes none; after a restart the stored state is
 * published again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectAsync } from 'mqtt';
import type { Client } from 'aedes';
import { metricsOfRecord, type V3MetricsContext } from '../../src/core/metrics/v3-metrics.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { mqttHarness, type MqttHarness } from '../mqtt/harness.js';
import { startTestServer } from '../support/server.js';
import { listen, soon } from './helpers.js';

const FAST = { stateFlushMs: 20, vehicleResyncMs: 100 };
const S_KM = '80.5,K,230,16.00,charging,standard,250,220,16,3600,0,125,0,1,0,0,0,0,24.50,120,0,0,90,0,0,0,0,60,120,300,0,-7.36,398.20,97.50,7.40,93.00,-18.50,0.0,5.0,1234.5,64.0,1700000000';
const D = '5,8,5,21,22,23,123,456789,0,600,12,1,1,1,12.6,0,12.8,0,24,0.5,21';
const L = '52.520008,13.404954,90,34,1,1,0.0,123,0,2.500,0.100,0.000,0,0,3,9,1.2,0.0,0';

async function car(h: MqttHarness, id: string): Promise<MpClient> {
  const c = await MpClient.connect({ host: '127.0.0.1', port: h.t.mpPort, clientType: 'C', vehicleId: id, scheme: 0, password: 'NETPASS' });
  return c;
}

/** The metric topics of a record, as the vehicle's prefix spells them. */
function expected(user: string, id: string, code: string, data: string, ctx: V3MetricsContext = { distanceUnit: 'K', hasD: true }): Map<string, string> {
  return new Map(metricsOfRecord(code, data, ctx).map(([name, payload]) => [`ovms/${user}/${id}/metric/${name.replace(/\./g, '/')}`, payload]));
}

test("a v2 car's records are published as the v3 metrics they carry, retained, and again only when they change", async (t) => {
  const h = await mqttHarness(t, 'embedded', FAST);
  const id = await h.vehicle();
  const c = await car(h, id);
  t.after(() => c.close());
  c.send('D', D);
  c.send('S', S_KM);
  c.send('L', L);
  const want = new Map([...expected('demo', id, 'S', S_KM), ...expected('demo', id, 'D', D), ...expected('demo', id, 'L', L)]);
  assert.ok(want.size > 60, `${want.size} metrics`);
  assert.equal(want.get(`ovms/demo/${id}/metric/v/b/soc`), '80.5');
  // a client that subscribes afterwards gets them all, retained
  const live = listen(await h.mqtt({ username: h.user, password: h.password }), [`ovms/demo/${id}/#`]);
  await live.ready;
  await soon(() => ([...want.keys()].every((k) => live.last(k) !== undefined) ? true : undefined), 'every metric', 10_000);
  // the charging state counts on D's bit (0x10 of field 1 is clear in D), as the module's own metric would
  for (const [topic, payload] of want) assert.equal(live.last(topic), payload, topic);
  await live.flushed();
  const late = listen(await h.mqtt({ username: h.user, password: h.password }), [`ovms/demo/${id}/metric/#`]);
  await late.ready;
  await late.flushed();
  assert.ok(late.messages.filter((m) => m.topic.includes('/metric/')).every((m) => m.retain), 'retained');
  assert.equal(late.last(`ovms/demo/${id}/metric/v/p/odometer`), want.get(`ovms/demo/${id}/metric/v/p/odometer`));

  // the same S again: nothing new; one field changed: that metric only
  const before = live.messages.length;
  c.send('S', S_KM);
  c.send('S', S_KM.replace(/^80\.5,/, '81.0,'));
  await soon(() => (live.last(`ovms/demo/${id}/metric/v/b/soc`) === '81' ? true : undefined), 'the new SOC');
  await live.flushed();
  const after = live.messages.slice(before).filter((m) => m.topic.includes('/metric/'));
  assert.deepEqual(
    after.map((m) => m.topic),
    [`ovms/demo/${id}/metric/v/b/soc`],
  );
});

test('a car set to miles: the metrics stay in km, the discovery says mi', async (t) => {
  const h = await mqttHarness(t, 'embedded', FAST);
  const id = await h.vehicle();
  const c = await car(h, id);
  t.after(() => c.close());
  const sMiles = S_KM.replace(',K,', ',M,');
  c.send('D', D);
  c.send('S', sMiles);
  const live = listen(await h.mqtt({ username: h.user, password: h.password }), [`ovms/demo/${id}/#`]);
  await live.ready;
  const odometer = expected('demo', id, 'D', D, { distanceUnit: 'M', hasD: true }).get(`ovms/demo/${id}/metric/v/p/odometer`)!;
  assert.equal(Number(odometer), Math.round((456789 / 10 / 0.62137) * 10) / 10, 'D field 8 in miles × 10, published in km');
  await soon(() => (live.last(`ovms/demo/${id}/metric/v/p/odometer`) === odometer ? true : undefined), 'the odometer in km');
  // Home Assistant subscribing now: the flush that published the odometer announced the unit.
  // (Subscribed before, a client of aedes may get a retained discovery from before the S after
  // the live one that replaced it: aedes streams the retained messages of a new subscription
  // while it delivers live ones.)
  const ha = listen(await h.mqtt({ username: h.user, password: h.password }), ['homeassistant/#']);
  await ha.ready;
  await soon(() => {
    const config = ha.last(`homeassistant/device/vts_${id}/config`);
    const odo = config ? (JSON.parse(config) as { components: Record<string, { unit_of_measurement?: string }> }).components.odometer : undefined;
    return odo?.unit_of_measurement === 'mi' ? true : undefined;
  }, 'the discovery in miles');
});

test("a v3 car's own metrics are not published again; vts adds only its vts/ topics", async (t) => {
  const h = await mqttHarness(t, 'embedded', FAST);
  const id = await h.vehicle();
  const fromBroker: string[] = [];
  h.t.server.broker!.aedes.on('publish', (packet, client: Client | null) => {
    if (!client && packet.topic.startsWith(`ovms/demo/${id}/`)) fromBroker.push(packet.topic);
  });
  const live = listen(await h.mqtt({ username: h.user, password: h.password }), [`ovms/demo/${id}/#`]);
  await live.ready;
  await h.module(id);
  await soon(() => (live.last(`ovms/demo/${id}/vts/availability`) === 'online' ? true : undefined), 'online');
  await soon(() => live.last(`ovms/demo/${id}/vts/location`), 'the location vts computes');
  await soon(() => live.last(`ovms/demo/${id}/metric/v/type`), "the module's own metrics");
  assert.ok(fromBroker.length > 0, 'vts published its own topics');
  assert.deepEqual(
    fromBroker.filter((topic) => !topic.includes('/vts/') && !topic.includes('/client/')),
    [],
    'no metric published by vts for a v3 car',
  );
});

test('--mqtt-mirror off: no metric topics, the vts topics stay', async (t) => {
  const h = await mqttHarness(t, 'embedded', { ...FAST, mirror: false });
  const id = await h.vehicle();
  const c = await car(h, id);
  t.after(() => c.close());
  c.send('S', S_KM);
  c.send('D', D);
  const live = listen(await h.mqtt({ username: h.user, password: h.password }), [`ovms/demo/${id}/#`]);
  await live.ready;
  await soon(() => live.last(`ovms/demo/${id}/vts/doors`), 'the doors');
  await live.flushed();
  assert.deepEqual(
    live.messages.filter((m) => m.topic.includes('/metric/')),
    [],
  );
});

test('after a restart the stored state of every vehicle is published again', async (t) => {
  const first = await startTestServer({ mqtt: { port: 0, tlsPort: null, wsPort: null, ...FAST } });
  const ownerId = await first.addUser('demo', 'demopass');
  await first.addVehicle('KEPT1', ownerId, 'NETPASS');
  const c = await MpClient.connect({ host: '127.0.0.1', port: first.mpPort, clientType: 'C', vehicleId: 'KEPT1', scheme: 0, password: 'NETPASS' });
  c.send('S', S_KM);
  await soon(async () => ((await first.server.store.getCarMessages('KEPT1')).some((m) => m.code === 'S') ? true : undefined), 'S stored');
  await c.close();
  await first.server.close();
  // the same database: the SQLite file in the data directory, or the first server's PostgreSQL schema
  const second = await startTestServer({ dataDir: first.dataDir, database: first.database, mqtt: { port: 0, tlsPort: null, wsPort: null, ...FAST } });
  t.after(async () => {
    await second.close();
    await first.close().catch(() => undefined); // drops the first server's schema
  });
  await second.server.vehicleState!.ready();
  const client = await connectAsync(`mqtt://127.0.0.1:${second.server.ports.mqtt!}`, { username: 'demo', password: 'demopass', reconnectPeriod: 0 });
  t.after(() => client.endAsync(true));
  const live = listen(client, ['ovms/demo/KEPT1/#', 'homeassistant/#']);
  await live.ready;
  await soon(() => (live.last('ovms/demo/KEPT1/metric/v/b/soc') === '80.5' ? true : undefined), 'the stored SOC, retained');
  await soon(() => (live.last('ovms/demo/KEPT1/vts/availability') === 'offline' ? true : undefined), 'offline');
  await soon(() => live.last('homeassistant/device/vts_KEPT1/config'), 'the discovery');
});
