/**
 * Home Assistant discovery on the embedded broker, end to end: a real server, a real MP car
 * (the emulator), MQTT clients logged in as owners: the discovery reaches its owner only (and
 * the superuser), follows the car's link, is published again on HA's birth message, and is
 * cleared when the vehicle is removed or changes owner; `--ha-discovery off` publishes none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MqttClient } from 'mqtt';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { mqttHarness, type MqttHarness } from '../mqtt/harness.js';
import { listen, mpCar, soon } from './helpers.js';

const FAST = { stateFlushMs: 20, vehicleResyncMs: 100 };
const config = (id: string): string => `homeassistant/device/vts_${id}/config`;

async function owner(h: MqttHarness, name: string): Promise<{ ownerId: number; client: () => Promise<MqttClient> }> {
  const ownerId = await h.t.addUser(name, 'pw-of-' + name);
  return { ownerId, client: () => h.mqtt({ username: name, password: 'pw-of-' + name }) };
}

test("each owner's Home Assistant sees the discovery of its own vehicles only; the superuser sees all", async (t) => {
  const h = await mqttHarness(t, 'embedded', FAST, { mqttSuperuser: 'root' });
  const mine = await h.vehicle();
  const other = await owner(h, 'other');
  const theirs = 'THEIRS1';
  await h.t.addVehicle(theirs, other.ownerId, 'NETPASS');
  await h.t.addUser('root', 'rootpw');
  await h.t.server.vehicleState!.announcer.resync();

  const demo = listen(await h.mqtt({ username: h.user, password: h.password }), ['homeassistant/#']);
  const them = listen(await other.client(), ['homeassistant/+/+/config']);
  const root = listen(await h.mqtt({ username: 'root', password: 'rootpw' }), ['homeassistant/#']);
  await Promise.all([demo.ready, them.ready, root.ready]);
  await soon(() => demo.last(config(mine)), 'my discovery');
  await soon(() => them.last(config(theirs)), 'their discovery');
  await soon(() => (root.last(config(mine)) && root.last(config(theirs)) ? true : undefined), 'both for the superuser');
  // a marker published after the retained ones: by then everything retained has arrived
  await h.t.server.vehicleState!.announcer.resync();
  assert.equal(demo.count(config(theirs)), 0, "demo never receives another owner's discovery");
  assert.equal(them.count(config(mine)), 0);
  const payload = JSON.parse(demo.last(config(mine))!) as { device: { identifiers: string[] }; components: Record<string, { state_topic?: string }> };
  assert.deepEqual(payload.device.identifiers, [`vts_${mine}`]);
  assert.equal(payload.components.soc?.state_topic, `ovms/demo/${mine}/metric/v/b/soc`);
});

test('availability follows the car: online while its link is up, offline when it leaves', async (t) => {
  const h = await mqttHarness(t, 'embedded', FAST);
  const id = await h.vehicle();
  const c = listen(await h.mqtt({ username: h.user, password: h.password }), [`ovms/demo/${id}/vts/#`]);
  await c.ready;
  const car = await mpCar(h, id);
  await soon(() => (c.last(`ovms/demo/${id}/vts/availability`) === 'online' ? true : undefined), 'online');
  await soon(() => c.last(`ovms/demo/${id}/vts/last_seen`), 'last seen');
  await car.stop();
  await soon(() => (c.last(`ovms/demo/${id}/vts/availability`) === 'offline' ? true : undefined), 'offline');
});

test("Home Assistant's birth message publishes its owner's discovery again, not another owner's", async (t) => {
  const h = await mqttHarness(t, 'embedded', FAST);
  const mine = await h.vehicle();
  const other = await owner(h, 'other');
  await h.t.addVehicle('THEIRS2', other.ownerId, 'NETPASS');
  await h.t.server.vehicleState!.announcer.resync();
  const demoClient = await h.mqtt({ username: h.user, password: h.password });
  const demo = listen(demoClient, ['homeassistant/#']);
  const them = listen(await other.client(), ['homeassistant/#']);
  await Promise.all([demo.ready, them.ready]);
  await soon(() => demo.last(config(mine)), 'first discovery');
  await soon(() => them.last(config('THEIRS2')), 'their first discovery');
  const before = { mine: demo.count(config(mine)), theirs: them.count(config('THEIRS2')) };
  await demoClient.publishAsync('homeassistant/status', 'online');
  await soon(() => (demo.count(config(mine)) > before.mine ? true : undefined), 'discovery again after the birth');
  await them.flushed();
  assert.equal(them.count(config('THEIRS2')), before.theirs, "another owner's birth message announces nothing of theirs");
  assert.equal(them.count('homeassistant/status'), 0, "one user's birth message never reaches another user");
});

test('a removed vehicle, and one that changes owner, has its discovery and state cleared', async (t) => {
  const h = await mqttHarness(t, 'embedded', FAST);
  const id = await h.vehicle();
  const car = await mpCar(h, id);
  const demo = listen(await h.mqtt({ username: h.user, password: h.password }), ['homeassistant/#', `ovms/demo/${id}/#`]);
  await demo.ready;
  await soon(() => demo.last(config(id)), 'discovery');
  await soon(() => demo.last(`ovms/demo/${id}/vts/availability`), 'state');
  await car.stop();
  await soon(() => (h.t.server.hub.link(id)?.car ? undefined : true), 'the car gone');
  const other = await owner(h, 'newowner');
  const them = listen(await other.client(), ['homeassistant/#']);
  await them.ready;
  // the vehicle moves to another owner
  await h.t.server.store.removeVehicle(id);
  await h.t.addVehicle(id, other.ownerId, 'NETPASS');
  await soon(() => (demo.last(config(id)) === '' ? true : undefined), "the old owner's discovery cleared");
  await soon(() => (demo.last(`ovms/demo/${id}/vts/availability`) === '' ? true : undefined), "the old owner's retained state cleared");
  await soon(() => them.last(config(id)) || undefined, "the new owner's discovery");
  const payload = JSON.parse(them.last(config(id))!) as { components: Record<string, { state_topic?: string }> };
  assert.equal(payload.components.soc?.state_topic, `ovms/newowner/${id}/metric/v/b/soc`);
  // a new HA of the old owner gets nothing retained of it
  const late = listen(await h.mqtt({ username: h.user, password: h.password }), ['homeassistant/#']);
  await late.ready;
  await late.flushed();
  assert.equal(late.count(config(id)), 0);
  // removed: the new owner's discovery is cleared too
  await h.t.server.store.removeVehicle(id);
  await soon(() => (them.last(config(id)) === '' ? true : undefined), 'cleared on removal');
});

test('--ha-discovery off publishes no discovery (the state topics stay)', async (t) => {
  const h = await mqttHarness(t, 'embedded', { ...FAST, haDiscoveryPrefix: null }, { mqttSuperuser: 'root' });
  const id = await h.vehicle();
  await h.t.addUser('root', 'rootpw');
  const c = listen(await h.mqtt({ username: 'root', password: 'rootpw' }), ['homeassistant/#', `ovms/demo/${id}/#`]);
  await c.ready;
  await mpCar(h, id);
  await soon(() => (c.last(`ovms/demo/${id}/vts/availability`) === 'online' ? true : undefined), 'online');
  await c.flushed();
  assert.equal(c.count(config(id)), 0);
});

test('a vehicle whose car sent before the vehicle list was read is announced when the list is read', async (t) => {
  const h = await mqttHarness(t, 'embedded', { stateFlushMs: 20, vehicleResyncMs: 3_600_000 });
  const id = await h.vehicle();
  const c = listen(await h.mqtt({ username: h.user, password: h.password }), ['homeassistant/#', `ovms/demo/${id}/vts/#`]);
  await c.ready;
  await mpCar(h, id);
  // the mirror knows the vehicle (its state is out) before the announcer read the list
  await soon(() => (c.last(`ovms/demo/${id}/vts/availability`) === 'online' ? true : undefined), 'online');
  await c.flushed();
  assert.equal(c.count(config(id)), 0, 'not in the list yet');
  await h.t.server.vehicleState!.announcer.resync();
  await soon(() => c.last(config(id)), 'announced once listed');
});

test('two vehicle ids of one node id (CAR.1, CAR_1): the first is announced, the other is not, and takes over when the first goes', async (t) => {
  const h = await mqttHarness(t, 'embedded', FAST);
  const other = await owner(h, 'other');
  await h.t.addVehicle('CAR.1', h.ownerId, 'NETPASS');
  await h.t.addVehicle('CAR_1', other.ownerId, 'NETPASS');
  await h.t.server.vehicleState!.announcer.resync();
  const demo = listen(await h.mqtt({ username: h.user, password: h.password }), ['homeassistant/#']);
  const them = listen(await other.client(), ['homeassistant/#']);
  await Promise.all([demo.ready, them.ready]);
  const topic = 'homeassistant/device/vts_CAR_1/config';
  await soon(() => demo.last(topic), "the first vehicle's discovery");
  assert.deepEqual((JSON.parse(demo.last(topic)!) as { device: { name: string } }).device.name, 'CAR.1');
  await them.flushed();
  assert.equal(them.count(topic), 0, "the other owner never sees the first owner's vehicle");
  assert.ok(h.t.logs.some((l) => l.includes('shares its node id')), 'the skipped vehicle is logged');
  await h.t.server.store.removeVehicle('CAR.1');
  await soon(() => (demo.last(topic) === '' ? true : undefined), 'cleared for its owner');
  await soon(() => them.last(topic) || undefined, "the other vehicle's discovery, for its owner");
  assert.equal((JSON.parse(them.last(topic)!) as { device: { name: string } }).device.name, 'CAR_1');
});

test("a vehicle given to another owner while its car stays connected: its state goes to the new owner's topics only", async (t) => {
  const h = await mqttHarness(t, 'embedded', FAST);
  const id = await h.vehicle();
  const car = await MpClient.connect({ host: '127.0.0.1', port: h.t.mpPort, clientType: 'C', vehicleId: id, scheme: 0, password: 'NETPASS' });
  t.after(() => car.close());
  car.send('L', '52.520008,13.404954,90,34,1,1,0.0,123,0,2.500,0.100,0.000,0,0,3,9,1.2,0.0,0');
  const demo = listen(await h.mqtt({ username: h.user, password: h.password }), [`ovms/demo/${id}/#`]);
  await demo.ready;
  await soon(() => demo.last(`ovms/demo/${id}/vts/location`), 'the location for demo');
  const other = await owner(h, 'newowner');
  const them = listen(await other.client(), [`ovms/newowner/${id}/#`, 'homeassistant/#']);
  await them.ready;
  await h.t.server.store.removeVehicle(id);
  await h.t.addVehicle(id, other.ownerId, 'NETPASS');
  await soon(() => (demo.last(`ovms/demo/${id}/vts/location`) === '' ? true : undefined), "demo's copy cleared");
  await soon(() => them.last(config(id)) || undefined, "the new owner's discovery");
  const cleared = demo.messages.length;
  // the car, still on its old connection, moves
  car.send('L', '48.137154,11.576124,90,34,1,1,0.0,123,0,2.500,0.100,0.000,0,0,3,9,1.2,0.0,0');
  await soon(() => (them.last(`ovms/newowner/${id}/vts/location`)?.includes('48.137154') ? true : undefined), "the new owner's location");
  await demo.flushed();
  assert.deepEqual(
    demo.messages.slice(cleared).filter((m) => !m.topic.endsWith('zz-marker')),
    [],
    'nothing more under the old owner',
  );
});

test('a birth message reads the vehicle list first: a vehicle added since is announced at once', async (t) => {
  const h = await mqttHarness(t, 'embedded', { stateFlushMs: 20, vehicleResyncMs: 3_600_000 });
  const c = listen(await h.mqtt({ username: h.user, password: h.password }), ['homeassistant/#']);
  await c.ready;
  const id = await h.vehicle();
  await c.flushed();
  assert.equal(c.count(config(id)), 0, 'not read yet');
  await c.client.publishAsync('homeassistant/status', 'online');
  await soon(() => c.last(config(id)), 'announced after the birth message');
});
