/**
 * Home Assistant in a cluster (docs/home-assistant.md, "In a cluster"): two real nodes on one
 * PostgreSQL schema and one Redis. A v2 car (MP) on node A; Home Assistant (an MQTT client) of
 * its owner on node B's embedded broker:
 * - gets the car's mirrored metrics, `vts/availability` = online and the vehicle's discovery;
 * - another owner's client on node B gets none of the first owner's discovery, also for vehicles
 *   added after both nodes started (each node reads the vehicle list every `--ha-resync`);
 * - a command published on node B runs on the car on node A, its outcome on `vts/result` on B;
 * - node A dies (kill -9) and the car logs in on node B: availability ends online and B goes on
 *   publishing its state;
 * - a birth message on node B publishes that owner's discovery again (as the node that hears the
 *   car shows it: firmware, VIN), not another owner's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectAsync } from 'mqtt';
import { hashPassword } from '../../src/auth/password.js';
import { metricsOfRecord } from '../../src/core/metrics/v3-metrics.js';
import type { MpClient } from '../../src/mp-client/mp-client.js';
import { eventually, roundTrip } from '../mp/helpers.js';
import { listen, type Listener } from '../ha/helpers.js';
import { answerCommands, skipCluster, startCluster, VEHICLE, type Cluster, type Node } from './harness.js';

/** Generous bound of the polls: guards against a hang, not a timing assertion. */
const WAIT = 30_000;
const S_KM = '80.5,K,230,16.00,charging,standard,250,220,16,3600,0,125,0,1,0,0,0,0,24.50,120,0,0,90,0,0,0,0,60,120,300,0,-7.36,398.20,97.50,7.40,93.00,-18.50,0.0,5.0,1234.5,64.0,1700000000';
const D = '5,8,5,21,22,23,123,456789,0,600,12,1,1,1,12.6,0,12.8,0,24,0.5,21';
const L = '52.520008,13.404954,90,34,1,1,0.0,123,0,2.500,0.100,0.000,0,0,3,9,1.2,0.0,0';
const F = '3.3.004-1-gabcdef/ota_0/main,WVWZZZAUZKW123456,5,1,VWEUP,EE,3,1';
const PREFIX = `ovms/demo/${VEHICLE}/`;
const config = (id: string): string => `homeassistant/device/vts_${id}/config`;
const TEST_COST = { N: 1024, r: 8, p: 1 };

/** The nodes read the vehicle list five times a second (vehicles added after they started). */
const NODE_FLAGS = ['--ha-resync', '0.2'];

/** An MQTT client of a node logged in as `user` (password `<user>pass`), listening; ended at the end. */
async function ha(t: Parameters<typeof startCluster>[0], node: Node, user: string, filters: string[]): Promise<Listener> {
  const client = await connectAsync(`mqtt://127.0.0.1:${node.mqtt}`, { username: user, password: `${user}pass`, reconnectPeriod: 0, connectTimeout: 5000 });
  t.after(() => client.endAsync(true));
  const l = listen(client, filters);
  await l.ready;
  return l;
}

/** A second owner `other` (password `otherpass`); returns its id. */
async function otherOwner(c: Cluster): Promise<number> {
  return (await c.store.addOwner('other', await hashPassword('otherpass', TEST_COST), '*')).id;
}

/** The car on a node, logged in (its `Z` read), sends its records; then answers its commands in the background. */
async function carOn(c: Cluster, node: Node, records: [string, string][]): Promise<MpClient> {
  const car = await c.mp(node, 'C');
  assert.equal((await car.next()).code, 'Z');
  for (const [code, data] of records) car.send(code, data);
  await roundTrip(car);
  answerCommands(car);
  return car;
}

/** The metric topics a record carries under the demo vehicle's prefix, with their payloads. */
function metrics(code: string, data: string): Map<string, string> {
  return new Map(metricsOfRecord(code, data, { distanceUnit: 'K', hasD: true }).map(([name, payload]) => [`${PREFIX}metric/${name.replace(/\./g, '/')}`, payload]));
}

/** The device of a discovery payload. */
const deviceOf = (payload: string | undefined): unknown => (payload ? (JSON.parse(payload) as { device: unknown }).device : undefined);

const is = (l: Listener, topic: string, payload: string) => () => (l.last(topic) === payload ? true : undefined);

test('Home Assistant on node B: the state, discovery and commands of a car on node A, isolation, birth, and the car moving to B', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, [], { extra: NODE_FLAGS });
  // other's vehicle THEIRS0 is there when the nodes start, THEIRS is added once they run
  const otherId = await otherOwner(c);
  await c.store.addVehicle({ id: 'THEIRS0', ownerId: otherId, name: 'their first car', carPassword: 'NETPASS' });
  const a = await c.start('a');
  const b = await c.start('b');

  // 1. the car on A; demo's Home Assistant on B
  const demo = await ha(t, b, 'demo', ['homeassistant/#', `${PREFIX}#`]);
  await carOn(c, a, [
    ['F', F],
    ['D', D],
    ['S', S_KM],
    ['L', L],
  ]);
  const want = new Map([...metrics('S', S_KM), ...metrics('D', D), ...metrics('L', L)]);
  assert.equal(want.get(`${PREFIX}metric/v/b/soc`), '80.5');
  await eventually(() => ([...want].every(([topic, payload]) => demo.last(topic) === payload) ? true : undefined), "every metric of the car on A, on B", WAIT);
  await eventually(is(demo, `${PREFIX}vts/availability`, 'online'), 'online on B', WAIT);
  const discovery = await eventually(() => {
    const p = demo.last(config(VEHICLE));
    return p && (JSON.parse(p) as { device: { sw_version?: string } }).device.sw_version ? p : undefined;
  }, "the car's discovery on B, with the firmware the car sent to A", WAIT);
  const device = (JSON.parse(discovery) as { device: { identifiers: string[]; serial_number?: string } }).device;
  assert.deepEqual(device.identifiers, [`vts_${VEHICLE}`]);
  assert.equal(device.serial_number, 'WVWZZZAUZKW123456');

  // 2. isolation on B, for a vehicle known at start and for vehicles added since
  await c.store.addVehicle({ id: 'THEIRS', ownerId: otherId, name: 'their car', carPassword: 'NETPASS' });
  const late = 'DEMOLATE';
  await c.store.addVehicle({ id: late, ownerId: c.ownerId, name: 'added later', carPassword: 'NETPASS' });
  const them = await ha(t, b, 'other', ['homeassistant/#']);
  await eventually(() => (them.last(config('THEIRS')) && them.last(config('THEIRS0')) ? true : undefined), "other's discoveries on B (one added after the start)", WAIT);
  await eventually(() => demo.last(config(late)), "demo's discovery of a vehicle added after the start, on B", WAIT);
  // a client that comes now gets the retained ones its user may see, and nothing else
  const them2 = await ha(t, b, 'other', ['homeassistant/#']);
  const demo2 = await ha(t, b, 'demo', ['homeassistant/#']);
  await eventually(() => (them2.last(config('THEIRS')) && them2.last(config('THEIRS0')) ? true : undefined), "other's retained discoveries on B", WAIT);
  await eventually(() => (demo2.last(config(VEHICLE)) && demo2.last(config(late)) ? true : undefined), "demo's retained discoveries on B", WAIT);
  await Promise.all([demo.flushed(), them.flushed(), them2.flushed(), demo2.flushed()]);
  for (const l of [them, them2]) {
    assert.equal(l.count(config(VEHICLE)), 0, "other never receives demo's discovery");
    assert.equal(l.count(config(late)), 0, "other never receives demo's later vehicle's discovery");
  }
  for (const l of [demo, demo2]) for (const id of ['THEIRS0', 'THEIRS']) assert.equal(l.count(config(id)), 0, "demo never receives other's discovery");

  // 3. a command published on B runs on the car on A; its outcome comes back on B
  const result = `${PREFIX}vts/result`;
  await demo.client.publishAsync(`${PREFIX}vts/set/climate`, 'ON');
  const outcome = JSON.parse(await eventually(() => demo.last(result), 'the result on B', WAIT)) as Record<string, unknown>;
  assert.deepEqual(outcome, { command: 'climate', payload: 'ON', result: 0, output: '' });
  const audit = await eventually(async () => {
    const rows = (await c.store.listCommandAudit(VEHICLE, 10)).filter((e) => e.via === 'mqtt');
    return rows.length > 0 ? rows : undefined;
  }, 'the audit', WAIT);
  assert.deepEqual(audit.map((e) => [e.caller, e.command]), [['user:demo', '26,1']]);
  assert.ok(a.run.stderr.some((l) => l.includes('"msg":"command"') && l.includes('26,1')), 'A ran the command on its car');

  // 5. HA's birth on B: demo's discoveries again (as A shows them), not other's (THEIRS0: both
  // nodes announced it at their start, long done: nothing else publishes it again)
  const before = { mine: demo.count(config(VEHICLE)), late: demo.count(config(late)), theirs: them.count(config('THEIRS0')) };
  await demo.client.publishAsync('homeassistant/status', 'online');
  await eventually(() => (demo.count(config(VEHICLE)) > before.mine && demo.count(config(late)) > before.late ? true : undefined), 'the discovery again after the birth', WAIT);
  await them.flushed();
  assert.equal(them.count(config('THEIRS0')), before.theirs, "demo's birth message announces nothing of other's");
  // B announces the vehicle as A does (the model, firmware and VIN the car sent to A), not as B read it at its start
  assert.deepEqual(deviceOf(demo.last(config(VEHICLE))), deviceOf(discovery));
  assert.ok(demo.last(config(VEHICLE)) === discovery, 'the same payload');
  // a new client gets that as the retained discovery
  const demo3 = await ha(t, b, 'demo', [config(VEHICLE)]);
  assert.deepEqual(deviceOf(await eventually(() => demo3.last(config(VEHICLE)), 'the retained discovery', WAIT)), deviceOf(discovery));

  // 4. A dies with the car's connection; the car logs in on B and goes on there
  await a.kill();
  await carOn(c, b, [['S', S_KM.replace(/^80\.5,/, '79.0,')]]);
  await eventually(is(demo, `${PREFIX}metric/v/b/soc`, '79'), 'the SOC the car sent to B, published by B', WAIT);
  await eventually(is(demo, `${PREFIX}vts/availability`, 'online'), 'online after the move', WAIT);
  // what B publishes is what stays: a new client gets it retained
  const after = await ha(t, b, 'demo', [`${PREFIX}#`, 'homeassistant/status']);
  await eventually(is(after, `${PREFIX}metric/v/b/soc`, '79'), 'the retained SOC', WAIT);
  await after.flushed();
  assert.equal(after.last(`${PREFIX}vts/availability`), 'online');
  // the command goes to the car on B now
  const n = demo.count(result);
  await demo.client.publishAsync(`${PREFIX}vts/set/climate`, 'OFF');
  await eventually(() => (demo.count(result) > n ? true : undefined), 'the second result', WAIT);
  assert.deepEqual(JSON.parse(demo.last(result)!), { command: 'climate', payload: 'OFF', result: 0, output: '' });
});

test('node A dies with the car, which does not come back: node B publishes it offline once A is gone from the cluster', { skip: skipCluster }, async (t) => {
  // a short lease: A is gone from the cluster a few heartbeats after its death
  const c = await startCluster(t, ['a', 'b'], { extra: [...NODE_FLAGS, '--cluster-heartbeat', '0.5'] });
  const [a, b] = c.nodes as [Node, Node];
  const demo = await ha(t, b, 'demo', [`${PREFIX}vts/#`]);
  await carOn(c, a, [['S', S_KM]]);
  await eventually(is(demo, `${PREFIX}vts/availability`, 'online'), 'online on B', WAIT);
  await a.kill();
  await eventually(is(demo, `${PREFIX}vts/availability`, 'offline'), 'offline, published by B', WAIT);
  assert.ok(b.logged('cluster: a node stopped answering: its cars and apps are gone from the counts'));
});

test('the car leaves node A and logs in on node B at once: availability ends online, and B publishes its state', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b'], { extra: NODE_FLAGS });
  const [a, b] = c.nodes as [Node, Node];
  await c.store.addVehicle({ id: 'MARKER', ownerId: c.ownerId, name: 'marker', carPassword: 'NETPASS' });
  const demo = await ha(t, b, 'demo', ['ovms/demo/#']);
  const onA = await carOn(c, a, [['S', S_KM]]);
  await eventually(is(demo, `${PREFIX}vts/availability`, 'online'), 'online on B', WAIT);
  await onA.close();
  await carOn(c, b, [['S', S_KM.replace(/^80\.5,/, '78.0,')]]);
  await eventually(is(demo, `${PREFIX}metric/v/b/soc`, '78'), 'the SOC the car sent to B', WAIT);
  // A publishes what it saw of the car in one flush after another, in order: once a car that
  // logs in on A now shows online, whatever A published of CLCAR since it left has arrived
  const marker = await c.mp(a, 'C', 'MARKER');
  assert.equal((await marker.next()).code, 'Z');
  await eventually(is(demo, 'ovms/demo/MARKER/vts/availability', 'online'), "the marker car's availability, published by A", WAIT);
  assert.equal(demo.last(`${PREFIX}vts/availability`), 'online');
  const late = await ha(t, b, 'demo', [`${PREFIX}vts/availability`]);
  assert.equal(await eventually(() => late.last(`${PREFIX}vts/availability`), 'the retained availability', WAIT), 'online');
});
