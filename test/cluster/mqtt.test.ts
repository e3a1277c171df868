/**
 * MQTT in a cluster: a v3 module (the emulator, in this process) on node A's embedded broker is a
 * connected vehicle on node B too (HTTP, MP apps), bridged once (by A); an MQTT client on node B
 * gets the module's retained metrics and its live publishes through the shared broker state; a
 * command from node B reaches the module on A and answers.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { connectAsync, type IPublishPacket } from 'mqtt';
import { createLogger } from '../../src/util/log.js';
import { EmulatedModule } from '../../src/module/module.js';
import { eventually } from '../mp/helpers.js';
import { CARPASS, VEHICLE, countsEverywhere, readUntil, skipCluster, startCluster, type Node } from './harness.js';

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));
const PREFIX = `ovms/demo/${VEHICLE}/`;

/** The emulated module with its MQTT link to a node's embedded broker (no v2 link); stopped at the end. */
async function moduleOn(t: TestContext, node: Node): Promise<EmulatedModule> {
  const mod = new EmulatedModule({
    id: VEHICLE,
    seed: 7,
    carPassword: CARPASS,
    adminPassword: 'admin',
    mqtt: { url: `mqtt://127.0.0.1:${node.mqtt}`, username: 'demo', password: 'demopass', minBackoffMs: 200 },
    log: quiet,
  });
  t.after(() => mod.stop());
  await mod.start();
  return mod;
}

/** Sets the module's state of charge and has it publish what changed at once. */
function setSoc(mod: EmulatedModule, soc: number): void {
  mod.metrics.set('v.b.soc', soc, mod.now());
  mod.scheduleUpdate('v3', 'modified');
}

/** `/api/status/CLCAR` on a node: its `soc`. */
async function socOn(node: Node): Promise<string | null> {
  const res = await fetch(node.url(`/api/status/${VEHICLE}`));
  assert.equal(res.status, 200);
  return ((await res.json()) as { soc: string | null }).soc;
}

/** Lines of a node's log with this message. */
const logLines = (node: Node, msg: string): number => node.run.stderr.filter((l) => l.includes(`"msg":${JSON.stringify(msg)}`)).length;

test('a v3 vehicle on node A is connected and readable on node B, and bridged once (by A)', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];
  const mod = await moduleOn(t, a);
  await countsEverywhere(c, { net: 1, apps: 0, batches: 0 });
  await eventually(async () => ((await socOn(b)) !== null ? true : undefined), "the module's S record on B", 10_000);

  // an MP app on B hears each rendered record once: a second bridge would repeat every S
  const app = await c.mp(b, 'A');
  await readUntil(app, 'T');
  setSoc(mod, 42.5);
  setSoc(mod, 43.5); // a moment later: in its own render, or the same one
  const records: string[] = [];
  for (;;) {
    const msg = await app.next(10_000);
    if (msg.code !== 'S') continue;
    records.push(msg.data);
    if (msg.data.startsWith('43.5,')) break;
  }
  for (let k = 1; k < records.length; k++) assert.notEqual(records[k], records[k - 1], `S sent twice: ${JSON.stringify(records)}`);
  await eventually(async () => ((await socOn(b)) === '43.5' ? true : undefined), 'soc 43.5 on B', 10_000);

  assert.equal(logLines(a, 'v3 vehicle online'), 1, 'A bridges the vehicle');
  assert.equal(logLines(b, 'v3 vehicle online'), 0, 'B does not');
});

test("an MQTT client on node B gets the module's retained metrics and its live publishes through node A", { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];
  const mod = await moduleOn(t, a);
  await countsEverywhere(c, { net: 1, apps: 0, batches: 0 });

  const client = await connectAsync(`mqtt://127.0.0.1:${b.mqtt}`, { username: 'demo', password: 'demopass', reconnectPeriod: 0, connectTimeout: 5000 });
  t.after(() => client.endAsync());
  const got: IPublishPacket[] = [];
  client.on('message', (_topic, _payload, packet) => got.push(packet));
  await client.subscribeAsync(`${PREFIX}metric/#`, { qos: 0 });
  const find = (topic: string, payload: RegExp, retain: boolean) => () =>
    got.find((p) => p.topic === PREFIX + topic && payload.test(p.payload.toString()) && p.retain === retain) ? true : undefined;
  await eventually(find('metric/s/v3/connected', /^yes$/, true), 'the retained connected = yes on B', 10_000);
  await eventually(find('metric/v/b/soc', /^\d+(\.\d+)?$/, true), 'a retained soc on B', 10_000);

  setSoc(mod, 12.5);
  await eventually(find('metric/v/b/soc', /^12\.5$/, false), 'the live soc 12.5 on B', 10_000);
  assert.equal(got.filter((p) => p.topic === `${PREFIX}metric/v/b/soc` && p.payload.toString() === '12.5').length, 1, 'once');

  // a new client on B gets the latest value as the retained one
  const late = await connectAsync(`mqtt://127.0.0.1:${b.mqtt}`, { username: 'demo', password: 'demopass', reconnectPeriod: 0, connectTimeout: 5000 });
  t.after(() => late.endAsync());
  const retained: string[] = [];
  late.on('message', (_topic, payload, packet) => void (packet.retain && retained.push(payload.toString())));
  await late.subscribeAsync(`${PREFIX}metric/v/b/soc`, { qos: 0 });
  assert.deepEqual(await eventually(() => (retained.length > 0 ? retained : undefined), 'the retained soc for a new client on B'), ['12.5']);
});

test(
  'a command from node B reaches the v3 vehicle on node A and answers',
  { skip: skipCluster },
  async (t) => {
    const c = await startCluster(t, ['a', 'b']);
    const [a, b] = c.nodes as [Node, Node];
    await moduleOn(t, a);
    await countsEverywhere(c, { net: 1, apps: 0, batches: 0 });
    const res = await fetch(b.url(`/api/command/${VEHICLE}`), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'echo hello-from-B', type: 'shell', timeout: 10 }),
    });
    assert.deepEqual(await res.json(), { output: 'hello-from-B\n', result: 0 });
    const logged = await eventually(
      () => a.run.stderr.find((l) => l.includes('"msg":"command"') && l.includes('echo hello-from-B')),
      'the command in the log of A, which ran it',
    );
    assert.match(logged, /"via":"api"/);
    assert.equal(b.run.stderr.filter((l) => l.includes('"msg":"command"')).length, 0, 'B passed it on and did not run it');
  },
);

test(
  'two clusters with their own --cluster-prefix on one Redis do not meet over MQTT',
  { skip: skipCluster },
  async (t) => {
    const [a] = (await startCluster(t, ['a'])).nodes as [Node];
    const [x] = (await startCluster(t, ['x'])).nodes as [Node];
    const connect = async (node: Node, clientId?: string) => {
      const client = await connectAsync(`mqtt://127.0.0.1:${node.mqtt}`, { username: 'demo', password: 'demopass', reconnectPeriod: 0, connectTimeout: 5000, ...(clientId ? { clientId } : {}) });
      t.after(() => client.endAsync(true));
      return client;
    };
    const watcher = await connect(a);
    const got: string[] = [];
    watcher.on('message', (topic, payload) => got.push(`${topic} ${payload.toString()}`));
    // the event topic only: the vehicle's retained state (vts/availability, …) is this cluster's own
    await watcher.subscribeAsync(`${PREFIX}event`, { qos: 1 });
    // QoS 1: acknowledged once the broker has passed it on, so the other cluster's comes first if at all
    await (await connect(x)).publishAsync(`${PREFIX}event`, 'from the other cluster', { qos: 1 });
    await (await connect(a)).publishAsync(`${PREFIX}event`, 'from this cluster', { qos: 1 });
    await eventually(() => (got.length > 0 ? true : undefined), 'the publish of this cluster');
    assert.deepEqual(got, [`${PREFIX}event from this cluster`]);

    // a client id taken in the other cluster does not close this cluster's client of that id
    const mine = await connect(a, `${VEHICLE}-twin`);
    await mine.subscribeAsync(`${PREFIX}twin`, { qos: 1 });
    let closed = false;
    mine.on('close', () => (closed = true));
    const echoes: string[] = [];
    mine.on('message', (_topic, payload) => echoes.push(payload.toString()));
    await connect(x, `${VEHICLE}-twin`);
    mine.publish(`${PREFIX}twin`, 'ping', { qos: 1 }, () => undefined);
    await eventually(() => (closed || echoes.length > 0 ? true : undefined), 'the echo or the close');
    assert.equal(closed, false, "this cluster's client was closed by the other cluster's login");
  },
);
