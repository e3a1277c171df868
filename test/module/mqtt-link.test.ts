/**
 * The emulator's v3 (MQTT) link against real brokers: an in-process aedes broker and the Mosquitto
 * of this machine at 127.0.0.1:1883 (anonymous; without it the Mosquitto tests are skipped with one
 * line, and fail under .ci/run, which starts it: test/support/services.ts). Each module connects through a small TCP proxy, so a test
 * can cut the connection as a network loss would. The module clock is a test clock that stands
 * still unless a test moves it, so the simulated car changes no metric behind the test's back.
 *
 * Covered per broker: every metric retained under `metric/<name with / for .>` with its payload and
 * `s/v3/connected` = `yes`; the last will turning it to `no` on an unclean drop, the waiting state
 * and a reconnect; commands and their responses (one at a time, acknowledged after the response);
 * client presence in `s.v3.peers` (leave with `0`, expiry after 120 s); notifications (`run`,
 * `notify raise`, data records at QoS 2); events; config and metric requests; the update passes.
 * Then the broker errors the link must survive (nothing listening, refused logins) and the pure
 * helpers (patterns, update interval).
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { Aedes, type AuthenticateError } from 'aedes';
import { connectAsync, type MqttClient } from 'mqtt';
import { newMetricSet } from '../../src/core/metrics/catalog.js';
import { metricPayload } from '../../src/core/metrics/payload.js';
import { createLogger } from '../../src/util/log.js';
import type { NumberParam } from '../../src/module/links/mqtt-channel.js';
import { matchesList, modifiedInterval } from '../../src/module/links/mqtt-metrics.js';
import { EmulatedModule, type ModuleOptions } from '../../src/module/module.js';
import { eventually } from '../mp/helpers.js';
import { MOSQUITTO_PORT, mosquitto, needs, requireServices } from '../support/services.js';

const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

// --- brokers, proxy, observer ---

interface Broker {
  port: number;
  /** Mosquitto keeps retained messages and sessions on disk: tests clean up after themselves. */
  persistent: boolean;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return address.port;
}

async function startAedes(setup?: (a: Aedes) => void): Promise<Broker> {
  const aedes = await Aedes.createBroker();
  setup?.(aedes);
  const server = createServer((socket) => aedes.handle(socket));
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await listen(server);
  return {
    port,
    persistent: false,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
    },
  };
}

async function useMosquitto(): Promise<Broker> {
  await requireServices(mosquitto);
  return { port: MOSQUITTO_PORT, persistent: true, close: async () => undefined };
}

/** An MQTT packet as the proxy saw it: PUBLISH (3) with topic and id, PUBACK (4) with id, others by type. */
interface WirePacket {
  type: number;
  topic?: string;
  id?: number;
}

/** Splits an MQTT byte stream into packets (fixed header, remaining length, PUBLISH/PUBACK fields). */
function packetReader(out: WirePacket[]): (chunk: Buffer) => void {
  let buf = Buffer.alloc(0);
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      let len = 0;
      let i = 1;
      for (let shift = 0; i < buf.length && i <= 4; i++, shift += 7) {
        len += (buf[i]! & 0x7f) << shift;
        if ((buf[i]! & 0x80) === 0) break;
      }
      if (i >= buf.length || buf.length < i + 1 + len) return;
      const type = buf[0]! >> 4;
      const body = buf.subarray(i + 1, i + 1 + len);
      if (type === 3) {
        const topicLength = body.readUInt16BE(0);
        const qos = (buf[0]! >> 1) & 3;
        out.push({ type, topic: body.subarray(2, 2 + topicLength).toString(), id: qos > 0 ? body.readUInt16BE(2 + topicLength) : undefined });
      } else if (type === 4) out.push({ type, id: body.readUInt16BE(0) });
      else out.push({ type });
      buf = buf.subarray(i + 1 + len);
    }
  };
}

/**
 * A TCP relay to the broker; `drop()` cuts every relayed connection as a network loss would. It
 * reads the packets of the last connection: `up` from the module, `down` to it.
 */
interface Proxy {
  port: number;
  up: WirePacket[];
  down: WirePacket[];
  drop(): void;
  close(): Promise<void>;
}

async function startProxy(target: number): Promise<Proxy> {
  const pairs = new Set<[Socket, Socket]>();
  const proxy = { up: [] as WirePacket[], down: [] as WirePacket[] };
  const server = createServer((inbound) => {
    proxy.up = [];
    proxy.down = [];
    inbound.on('data', packetReader(proxy.up));
    const outbound = netConnect(target, '127.0.0.1');
    outbound.on('data', packetReader(proxy.down));
    const pair: [Socket, Socket] = [inbound, outbound];
    pairs.add(pair);
    const end = (): void => {
      inbound.destroy();
      outbound.destroy();
      pairs.delete(pair);
    };
    inbound.on('error', end).on('close', end);
    outbound.on('error', end).on('close', end);
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  const port = await listen(server);
  const drop = (): void => {
    for (const [a, b] of pairs) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };
  return Object.assign(proxy, {
    port,
    drop,
    close: async () => {
      drop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

interface Received {
  topic: string;
  payload: string;
  retain: boolean;
  qos: number;
}

/** An MQTT client of the test: what it received, in order. */
class Observer {
  readonly messages: Received[] = [];

  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload, packet) => {
      this.messages.push({ topic, payload: payload.toString(), retain: packet.retain, qos: packet.qos });
    });
  }

  static async connect(port: number, clientId = `obs-${randomBytes(4).toString('hex')}`): Promise<Observer> {
    return new Observer(await connectAsync(`mqtt://127.0.0.1:${port}`, { clientId, clean: true, reconnectPeriod: 0 }));
  }

  async subscribe(filter: string): Promise<void> {
    await this.client.subscribeAsync(filter, { qos: 2 });
  }

  async publish(topic: string, payload: string, qos: 0 | 1 = 1): Promise<void> {
    await this.client.publishAsync(topic, payload, { qos, retain: false });
  }

  /** The first message (from `from` on) on `topic` that `ok` accepts. */
  async next(topic: string, what: string, ok: (m: Received) => boolean = () => true, from = 0): Promise<Received> {
    return eventually(() => this.messages.slice(from).find((m) => m.topic === topic && ok(m)), what, 10_000);
  }

  close(): Promise<void> {
    return this.client.endAsync(true);
  }
}

// --- the module under test ---

interface Fixture {
  broker: Broker;
  proxy: Proxy;
  mod: EmulatedModule;
  prefix: string;
  /** Moves the test clock (real and module time) on. */
  advance(seconds: number): void;
  observer(): Promise<Observer>;
}

type BrokerKind = 'aedes' | 'mosquitto';

async function startBroker(kind: BrokerKind): Promise<Broker> {
  return kind === 'aedes' ? startAedes() : useMosquitto();
}

/** Removes what a test left on a persistent broker: retained topics under the prefix, the module's session. */
async function cleanBroker(port: number, prefix: string, clientId: string): Promise<void> {
  const o = await Observer.connect(port);
  await o.subscribe(`${prefix}#`);
  // Retained messages are delivered right after SUBACK; a round trip through the broker follows them.
  const marker = `${prefix}zz-clean-marker`;
  await o.publish(marker, 'x');
  await o.next(marker, 'the clean-up marker');
  for (const t of new Set(o.messages.filter((m) => m.retain).map((m) => m.topic))) {
    await o.client.publishAsync(t, '', { qos: 1, retain: true });
  }
  await o.close();
  const session = await connectAsync(`mqtt://127.0.0.1:${port}`, { clientId, clean: true, reconnectPeriod: 0 });
  await session.endAsync();
}

async function setup(t: TestContext, kind: BrokerKind, mqtt: Partial<NonNullable<ModuleOptions['mqtt']>> = {}): Promise<Fixture> {
  const broker = await startBroker(kind);
  const proxy = await startProxy(broker.port);
  const run = randomBytes(4).toString('hex');
  const id = `MQ${run.toUpperCase()}`;
  const username = `vts-test-${run}`;
  let clockMs = Date.parse('2026-01-01T08:00:00Z');
  const mod = new EmulatedModule({
    id,
    seed: 5,
    carPassword: 'NETPASS',
    adminPassword: 'admin',
    mqtt: { url: `mqtt://127.0.0.1:${proxy.port}`, username, password: 'mqttpass', ...mqtt },
    clock: () => clockMs,
    log: quiet,
  });
  const observers: Observer[] = [];
  const prefix = mqtt.topicPrefix ?? `ovms/${username}/${id}/`;
  t.after(async () => {
    await mod.stop();
    await Promise.all(observers.map((o) => o.close().catch(() => undefined)));
    await proxy.close();
    if (broker.persistent) await cleanBroker(broker.port, prefix, id);
    await broker.close();
  });
  await mod.start();
  return {
    broker,
    proxy,
    mod,
    prefix,
    advance: (seconds) => {
      clockMs += seconds * 1000;
    },
    observer: async () => {
      const o = await Observer.connect(broker.port);
      observers.push(o);
      return o;
    },
  };
}

/** Waits until the module is logged in and its first full pass is on the broker. */
async function online(f: Fixture): Promise<void> {
  await eventually(() => (f.mod.mqtt?.connected ? true : undefined), 'the module logs in', 10_000);
  const o = await f.observer();
  await o.subscribe(`${f.prefix}metric/s/v3/connected`);
  await o.next(`${f.prefix}metric/s/v3/connected`, 's/v3/connected = yes', (m) => m.payload === 'yes');
}

/** Sends a command as a client and returns the response. */
async function command(o: Observer, prefix: string, rid: string, line: string, cid = 'tester'): Promise<Received> {
  const topic = `${prefix}client/${cid}/response/${rid}`;
  const from = o.messages.length;
  await o.publish(`${prefix}client/${cid}/command/${rid}`, line);
  return o.next(topic, `the response to ${JSON.stringify(line)}`, () => true, from);
}

// --- per broker ---

const mosquittoSkip = await needs(mosquitto);

for (const kind of ['aedes', 'mosquitto'] as const) {
  const skip = kind === 'mosquitto' ? mosquittoSkip : false;
  test(`${kind}: every metric is retained under metric/<name with / for .> with its payload; s/v3/connected is yes`, { skip }, async (t) => {
    const f = await setup(t, kind);
    await online(f);
    const names = f.mod.metrics.names();
    assert.ok(names.length > 100, `a module has many metrics (${names.length})`);
    // The full pass goes out 100 metrics a second; a new subscriber then gets every retained value.
    const last = `${f.prefix}metric/${names[names.length - 1]!.replace(/\./g, '/')}`;
    const live = await f.observer();
    await live.subscribe(`${f.prefix}metric/#`);
    await live.next(last, 'the last metric of the pass');
    const o = await f.observer();
    await o.subscribe(`${f.prefix}metric/#`);
    const retained = await eventually(() => (o.messages.length >= names.length ? o.messages : undefined), 'every retained metric');
    const byTopic = new Map(retained.map((m) => [m.topic, m]));
    assert.deepEqual([...byTopic.keys()].sort(), names.map((n) => `${f.prefix}metric/${n.replace(/\./g, '/')}`).sort(), 'one topic per metric');
    for (const name of names) {
      const m = byTopic.get(`${f.prefix}metric/${name.replace(/\./g, '/')}`)!;
      assert.equal(m.payload, metricPayload(f.mod.metrics.def(name), f.mod.metrics.get(name)!), name);
      assert.equal(m.retain, true, `${name} retained`);
      assert.equal(m.qos, 0, `${name} at QoS 0`);
    }
    assert.equal(byTopic.get(`${f.prefix}metric/s/v3/connected`)?.payload, 'yes');
    assert.equal(byTopic.get(`${f.prefix}metric/s/v3/peers`)?.payload, '0');
    assert.match(byTopic.get(`${f.prefix}metric/v/b/soc`)!.payload, /^\d+(\.\d)?$/);
    assert.match(byTopic.get(`${f.prefix}metric/v/p/latitude`)!.payload, /^-?\d+\.\d{6}$/, 'latitude with 6 decimals');
    assert.deepEqual(f.mod.linkStatus('v3'), { started: true, state: 'Connected', detail: 'OVMS V3 MQTT login successful' });
    assert.equal(await f.mod.runner.execute('server v3 status'), 'State: Connected\n       OVMS V3 MQTT login successful\n');
  });

  test(`${kind}: the last will turns s/v3/connected to no on an unclean drop; the link waits, and reconnects on start`, { skip }, async (t) => {
    const f = await setup(t, kind);
    await online(f);
    const o = await f.observer();
    const topic = `${f.prefix}metric/s/v3/connected`;
    await o.subscribe(topic);
    await o.next(topic, 'the retained yes', (m) => m.retain && m.payload === 'yes');
    const from = o.messages.length;
    f.proxy.drop();
    const will = await o.next(topic, 'the will', (m) => m.payload === 'no', from);
    assert.equal(will.retain, false, 'delivered live to a subscriber');
    const status = await eventually(() => {
      const s = f.mod.linkStatus('v3');
      return s.state.startsWith('Waiting to reconnect') ? s : undefined;
    }, 'the waiting state');
    const remaining = /^Waiting to reconnect \((\d+) second\(s\) remaining\)$/.exec(status.state);
    assert.ok(remaining && Number(remaining[1]) <= 60, status.state);
    assert.equal(status.detail, 'Disconnected from OVMS Server V3');
    assert.equal(f.mod.metrics.bool('s.v3.connected'), false);
    const late = await f.observer();
    await late.subscribe(topic);
    assert.equal((await late.next(topic, 'the retained will')).payload, 'no', 'the will is retained');
    assert.equal(await f.mod.runner.execute('server v3 stop'), 'Stopping OVMS Server V3 connection (oscv3)\n');
    assert.equal(await f.mod.runner.execute('server v3 status'), 'OVMS v3 server has not been started\n');
    assert.equal(await f.mod.runner.execute('server v3 start'), 'Launching OVMS Server V3 connection (oscv3)\n');
    await o.next(topic, 'yes again after the reconnect', (m) => m.payload === 'yes', from);
    assert.equal(f.mod.metrics.bool('s.v3.connected'), true);
  });

  test(`${kind}: a command's output comes back on client/<id>/response/<n>, one command at a time`, { skip }, async (t) => {
    const f = await setup(t, kind);
    await online(f);
    const o = await f.observer();
    await o.subscribe(`${f.prefix}client/tester/response/#`);
    const r = await command(o, f.prefix, '7', 'echo hello world');
    assert.deepEqual(r, { topic: `${f.prefix}client/tester/response/7`, payload: 'hello\nworld\n', retain: false, qos: 1 });
    assert.equal((await command(o, f.prefix, 'x', 'frobnicate')).payload, 'Unrecognised command\n');
    assert.equal((await command(o, f.prefix, 'e', '')).payload, '', 'empty command, empty response');
    const stat = await command(o, f.prefix, 'stat', 'stat');
    assert.match(stat.payload, /SOC: \d+(\.\d)?%\n/);

    const from = o.messages.length;
    await o.publish(`${f.prefix}client/tester/command/a`, 'sleep 1');
    await o.publish(`${f.prefix}client/tester/command/b`, 'echo after');
    await o.next(`${f.prefix}client/tester/response/b`, 'the second response', () => true, from);
    assert.deepEqual(
      o.messages.slice(from).map((m) => `${m.topic.split('/').pop()}=${m.payload}`),
      ['a=', 'b=after\n'],
      'the second command waited for the first',
    );
    // On the wire, the module acknowledges a command only after it sent the response (§1, §4.2).
    const { up, down } = f.proxy;
    const commandId = (rid: string): number | undefined =>
      down.find((p) => p.type === 3 && p.topic === `${f.prefix}client/tester/command/${rid}`)?.id;
    const puback = (rid: string): number => up.findIndex((p) => p.type === 4 && p.id === commandId(rid));
    const response = (rid: string): number => up.findIndex((p) => p.type === 3 && p.topic === `${f.prefix}client/tester/response/${rid}`);
    await eventually(() => (puback('b') >= 0 ? true : undefined), 'the PUBACK of command b');
    for (const rid of ['7', 'x', 'e', 'stat', 'a', 'b']) {
      assert.ok(commandId(rid) !== undefined, `command ${rid} delivered at QoS 1`);
      assert.ok(response(rid) >= 0 && response(rid) < puback(rid), `response ${rid} before the PUBACK of its command`);
    }
    assert.ok(puback('a') < response('b'), 'command b ran after command a was acknowledged');
  });

  test(`${kind}: clients announced on client/<id>/active count in s.v3.peers, leave with 0 and expire after 120 s`, { skip }, async (t) => {
    const f = await setup(t, kind);
    await online(f);
    const o = await f.observer();
    const topic = `${f.prefix}metric/s/v3/peers`;
    await o.subscribe(topic);
    await o.next(topic, 'peers 0', (m) => m.payload === '0');
    /** Does `action`, then waits for the count in the module and on the broker. */
    const peers = async (action: () => Promise<void> | void, n: number): Promise<void> => {
      const from = o.messages.length;
      await action();
      await eventually(() => (f.mod.metrics.num('s.v3.peers') === n ? true : undefined), `s.v3.peers = ${n}`);
      const seen = await o.next(topic, `metric/s/v3/peers = ${n}`, () => true, from);
      assert.equal(seen.payload, String(n), 'the next published count');
    };
    const active = (cid: string, payload: string) => () => o.publish(`${f.prefix}client/${cid}/active`, payload);
    await peers(active('app1', '1'), 1);
    await peers(active('app2', 'yes'), 2);
    await peers(active('app1', '0'), 1);
    await peers(active('app3', '1'), 2);
    await peers(active('app3', ''), 1);
    await peers(() => f.advance(121), 0);
    const late = await f.observer();
    await late.subscribe(topic);
    const retained = await late.next(topic, 'the retained count');
    assert.deepEqual([retained.payload, retained.retain], ['0', true]);
  });

  test(`${kind}: notifications: run output on notify/info/cmd/<command>, alerts, data records at QoS 2`, { skip }, async (t) => {
    const f = await setup(t, kind);
    await online(f);
    const o = await f.observer();
    await o.subscribe(`${f.prefix}notify/#`);
    await o.subscribe(`${f.prefix}client/tester/response/#`);
    assert.equal((await command(o, f.prefix, '1', 'run echo hi there')).payload, 'Background execution started.\n');
    const info = await o.next(`${f.prefix}notify/info/cmd/echo`, 'the run notification');
    assert.deepEqual([info.payload, info.qos, info.retain], ['hi\nthere\n', 1, false]);
    await command(o, f.prefix, '2', 'notify raise text alert usr.test.alarm "look, a comma"');
    const alert = await o.next(`${f.prefix}notify/alert/usr/test/alarm`, 'the alert');
    assert.deepEqual([alert.payload, alert.qos], ['look, a comma', 1]);
    await command(o, f.prefix, '3', 'notify raise text data usr.log "*-LOG-Test,1,86400,a,b"');
    const data = await eventually(() => o.messages.find((m) => m.topic.startsWith(`${f.prefix}notify/data/usr/log/`)), 'the data record', 10_000);
    assert.match(data.topic, /\/notify\/data\/usr\/log\/\d+\/0$/, 'entry id, age 0');
    assert.deepEqual([data.payload, data.qos], ['*-LOG-Test,1,86400,a,b', 2]);
  });

  test(`${kind}: events go out on event (name) and event/<name with / for .> (empty); ticker events do not`, { skip }, async (t) => {
    const f = await setup(t, kind);
    await online(f);
    const o = await f.observer();
    await o.subscribe(`${f.prefix}event/#`);
    await o.subscribe(`${f.prefix}event`);
    await o.subscribe(`${f.prefix}client/tester/response/#`);
    await command(o, f.prefix, '1', 'event raise ticker.10');
    await command(o, f.prefix, '2', 'event raise usr.test.go');
    const legacy = await o.next(`${f.prefix}event`, 'the legacy event', (m) => m.payload === 'usr.test.go');
    assert.deepEqual([legacy.qos, legacy.retain], [0, false]);
    const named = await o.next(`${f.prefix}event/usr/test/go`, 'the event topic');
    assert.equal(named.payload, '');
    const events = o.messages.filter((m) => m.topic === `${f.prefix}event`).map((m) => m.payload);
    assert.ok(!events.includes('ticker.10'), `no ticker event: ${events.join(', ')}`);
    f.mod.config.set('server.v3', 'events.legacy_topic', 'no');
    await command(o, f.prefix, '3', 'event raise usr.test.new');
    await o.next(`${f.prefix}event/usr/test/new`, 'the new-style event');
    await command(o, f.prefix, '4', 'event raise usr.test.barrier');
    await o.next(`${f.prefix}event/usr/test/barrier`, 'the barrier event');
    const after = o.messages.filter((m) => m.topic === `${f.prefix}event`).map((m) => m.payload);
    assert.ok(!after.includes('usr.test.new'), 'legacy topic off');
  });

  test(`${kind}: request/config and request/metric are answered`, { skip }, async (t) => {
    const f = await setup(t, kind);
    await online(f);
    const o = await f.observer();
    await o.subscribe(`${f.prefix}client/tester/config/#`);
    await o.publish(`${f.prefix}client/tester/request/config`, ' vehicle/id \n');
    const id = await o.next(`${f.prefix}client/tester/config/vehicle/id`, 'the vehicle id');
    assert.deepEqual([id.payload, id.qos, id.retain], [f.mod.opts.id, 0, false]);
    await o.publish(`${f.prefix}client/tester/request/config`, 'server.v3/user');
    assert.equal((await o.next(`${f.prefix}client/tester/config/server/v3/user`, 'the user')).payload, f.prefix.split('/')[1]);
    await o.publish(`${f.prefix}client/tester/request/config`, 'vehicle/nothing.here');
    assert.equal((await o.next(`${f.prefix}client/tester/config/vehicle/nothing/here`, 'an unset value')).payload, '');

    await o.subscribe(`${f.prefix}metric/#`);
    const from = o.messages.length;
    f.mod.metrics.set('v.b.soc', 42.5, f.mod.now());
    await o.publish(`${f.prefix}client/tester/request/metric`, 'v.b.soc,m.net.mdm.*');
    const soc = await o.next(`${f.prefix}metric/v/b/soc`, 'the requested soc', (m) => !m.retain, from);
    assert.equal(soc.payload, '42.5');
    await o.next(`${f.prefix}metric/m/net/mdm/model`, 'a metric matching m.net.mdm.*', (m) => !m.retain, from);
  });

  test(`${kind}: changed metrics go out with the next modified pass, on update modified, priority and all`, { skip }, async (t) => {
    const f = await setup(t, kind);
    await online(f);
    const o = await f.observer();
    await o.subscribe(`${f.prefix}metric/#`);
    await o.subscribe(`${f.prefix}client/tester/response/#`);
    f.mod.metrics.set('x.test.mark', 'one', f.mod.now());
    f.advance(601); // longer than every update interval (idle 600 s)
    await o.next(`${f.prefix}metric/x/test/mark`, 'the periodic modified pass', (m) => m.payload === 'one');
    f.mod.metrics.set('x.test.mark', 'two', f.mod.now());
    const r = await command(o, f.prefix, '1', 'server v3 update modified');
    assert.equal(r.payload, 'Server V3 data update for modified metrics has been scheduled\n');
    await o.next(`${f.prefix}metric/x/test/mark`, 'update modified', (m) => m.payload === 'two');
    // A priority pass sends only the changed priority metrics (§3.2), in name order.
    const before = o.messages.length;
    f.mod.metrics.set('a.test.mark', 'not priority', f.mod.now());
    f.mod.metrics.set('v.p.latitude', 48.1, f.mod.now());
    await command(o, f.prefix, 'p', 'server v3 update priority');
    await o.next(`${f.prefix}metric/v/p/latitude`, 'update priority', (m) => m.payload === '48.100000', before);
    const upToLatitude = o.messages.slice(before, o.messages.findIndex((m, i) => i >= before && m.topic.endsWith('/v/p/latitude')));
    assert.ok(!upToLatitude.some((m) => m.topic.endsWith('/a/test/mark')), 'a.test.mark is no priority metric');
    const from = o.messages.length;
    await command(o, f.prefix, '2', 'server v3 update all');
    const names = f.mod.metrics.names();
    const seen = await eventually(() => {
      const topics = new Set(o.messages.slice(from).map((m) => m.topic));
      return names.every((n) => topics.has(`${f.prefix}metric/${n.replace(/\./g, '/')}`)) ? topics : undefined;
    }, 'every metric again after update all');
    assert.ok(seen.has(`${f.prefix}metric/x/test/mark`));
  });
}

// --- errors the link survives (aedes) ---

test('nothing listening: the link waits to reconnect with "Error: Connection failed" and the module goes on', async (t) => {
  const probe = createServer();
  const port = await listen(probe);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const mod = new EmulatedModule({
    id: 'MQNONE',
    seed: 1,
    carPassword: 'x',
    adminPassword: 'admin',
    mqtt: { url: `mqtt://127.0.0.1:${port}`, username: 'nobody', password: '' },
    log: quiet,
  });
  t.after(() => mod.stop());
  await mod.start();
  const status = await eventually(() => {
    const s = mod.linkStatus('v3');
    return s.state.startsWith('Waiting to reconnect') ? s : undefined;
  }, 'the retry state');
  const remaining = /^Waiting to reconnect \((\d+) second\(s\) remaining\)$/.exec(status.state);
  assert.ok(remaining && Number(remaining[1]) <= 30, status.state);
  assert.equal(status.detail, 'Error: Connection failed');
  assert.equal(await mod.runner.execute('echo still here'), 'still\nhere\n');
  assert.equal(mod.metrics.bool('s.v3.connected'), false);
});

for (const [code, detail] of [
  [5, 'Authentication error (wrong user/password/client ID)'],
  [3, 'Server temporarily unavailable'],
] as const) {
  test(`a login refused with code ${code}: "${detail}", retried with back-off, logged at warn with the reason`, async (t) => {
    const logins: { clientId: string; username: string | undefined; password: string | undefined }[] = [];
    const lines: string[] = [];
    const log = createLogger('info', new Writable({ write: (c: Buffer, _e, cb) => (lines.push(...c.toString().split('\n').filter(Boolean)), cb()) }));
    const broker = await startAedes((a) => {
      a.authenticate = (client, username, password, done) => {
        logins.push({ clientId: client.id, username, password: password?.toString() });
        done(Object.assign(new Error('refused'), { returnCode: code }) as unknown as AuthenticateError, false);
      };
    });
    const mod = new EmulatedModule({
      id: 'MQAUTH',
      seed: 1,
      carPassword: 'x',
      adminPassword: 'admin',
      mqtt: { url: `mqtt://127.0.0.1:${broker.port}`, username: 'owner', password: 'Wrong-Secret', minBackoffMs: 50, maxBackoffMs: 100 },
      log,
    });
    t.after(async () => {
      await mod.stop();
      await broker.close();
    });
    await mod.start();
    await eventually(() => (logins.length >= 2 ? true : undefined), 'a second attempt');
    assert.deepEqual(logins[0], { clientId: 'MQAUTH', username: 'owner', password: 'Wrong-Secret' });
    const status = await eventually(() => {
      const s = mod.linkStatus('v3');
      return s.state.startsWith('Waiting to reconnect') ? s : undefined;
    }, 'the retry state');
    assert.equal(status.detail, detail);
    assert.equal(mod.mqtt?.connected, false);
    const failed = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'v3 link login failed');
    assert.ok(failed.length >= 1);
    assert.deepEqual(
      { level: failed[0]!.level, refused: failed[0]!.refused, reason: failed[0]!.reason, broker: failed[0]!.broker },
      { level: 40, refused: code, reason: `Connection refused: ${code === 5 ? 'Not authorized' : 'Server unavailable'}`, broker: `mqtt://127.0.0.1:${broker.port}` },
    );
    assert.ok(typeof failed[0]!.retryInMs === 'number' && failed[0]!.retryInMs <= 100, 'the delay within the back-off');
    assert.ok(!lines.some((l) => l.includes('Wrong-Secret')), 'no password in a log line');
  });
}

test('an empty user name and password are not sent; a custom prefix is used verbatim', async (t) => {
  const logins: (string | undefined)[][] = [];
  const broker = await startAedes((a) => {
    a.authenticate = (client, username, password, done) => {
      logins.push([client.id, username, password?.toString()]);
      done(null, true);
    };
  });
  const mod = new EmulatedModule({
    id: 'MQANON',
    seed: 1,
    carPassword: 'x',
    adminPassword: 'admin',
    mqtt: { url: `mqtt://127.0.0.1:${broker.port}`, username: '', password: 'ignored', topicPrefix: 'fleet/7/', clientId: 'module-7' },
    log: quiet,
  });
  t.after(async () => {
    await mod.stop();
    await broker.close();
  });
  const o = await Observer.connect(broker.port);
  t.after(() => o.close());
  await o.subscribe('fleet/7/metric/s/v3/connected');
  await mod.start();
  await o.next('fleet/7/metric/s/v3/connected', 'yes under the custom prefix', (m) => m.payload === 'yes');
  assert.deepEqual(
    logins.find(([id]) => id === 'module-7'),
    ['module-7', undefined, undefined],
  );
  assert.equal(mod.mqtt?.prefix, 'fleet/7/');
});

// --- pure helpers ---

test('matchesList: comma lists with * only at the start or the end', () => {
  assert.equal(matchesList('v.b.*', 'v.b.soc'), true);
  assert.equal(matchesList('v.b.*', 'v.c.soc'), false);
  assert.equal(matchesList('*.soc', 'v.b.soc'), true);
  assert.equal(matchesList('*.soc', 'v.b.soh'), false);
  assert.equal(matchesList('s.v3.connected, v.b.soc', 'v.b.soc'), true);
  assert.equal(matchesList('s.v3.connected,v.b.soc', 'v.b.soc.x'), false);
  assert.equal(matchesList('*', 'anything'), true);
  assert.equal(matchesList('*b.s*', 'v.b.soc'), true);
  assert.equal(matchesList('', 'v.b.soc'), false);
});

test('modifiedInterval: on, charging, clients present, awake, idle (config overrides)', () => {
  const m = newMetricSet();
  const config: Partial<Record<NumberParam, number>> = {};
  const defaults: Record<string, number> = {
    'updatetime.on': 5,
    'updatetime.charging': 10,
    'updatetime.connected': 10,
    'updatetime.awake': 60,
    'updatetime.idle': 600,
  };
  const setting = (n: NumberParam): number => config[n] ?? defaults[n]!;
  assert.equal(modifiedInterval(m, 0, setting), 600);
  m.set('v.e.awake', true, 0);
  assert.equal(modifiedInterval(m, 0, setting), 60);
  config['updatetime.connected'] = 7;
  assert.equal(modifiedInterval(m, 2, setting), 7);
  m.set('v.c.charging', true, 0);
  assert.equal(modifiedInterval(m, 2, setting), 10);
  m.set('v.e.on', true, 0);
  assert.equal(modifiedInterval(m, 2, setting), 5);
});
