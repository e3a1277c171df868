/**
 * Set-up shared by the MQTT tests: a real vts server (SQLite file, real sockets) whose bridge uses
 * the embedded broker or the Mosquitto of this machine, owner `demo` (password `demopass`) of
 * vehicles, emulated v3 modules on MQTT, MP app clients and HTTP requests.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { TestContext } from 'node:test';
import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt';
import { createLogger } from '../../src/util/log.js';
import { EmulatedModule } from '../../src/module/module.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import type { MqttConfig, ServerConfig } from '../../src/server/server.js';
import { DEMO_AUTH, send, withQuery, type HttpResponse, type RequestOptions } from '../http/helpers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { mosquitto, requireServices } from '../support/services.js';

export const MOSQUITTO_URL = 'mqtt://127.0.0.1:1883';
const quiet = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

/** Fails with what is missing and how to get it when Mosquitto is not there (the tests skip before, unless CI requires it). */
export async function mosquittoUp(): Promise<void> {
  await requireServices(mosquitto);
}

export interface MqttHarness {
  t: TestServer;
  ownerId: number;
  /** The user name the modules log in with (`demo` on the embedded broker, unique on Mosquitto). */
  user: string;
  password: string;
  /** The broker modules and test clients connect to. */
  brokerUrl: string;
  /** A vehicle of the user (random id unless given). */
  vehicle(id?: string): Promise<string>;
  /** An emulated module on MQTT for the vehicle, started; stopped when the test ends. */
  module(id: string, opts?: { username?: string; password?: string }): Promise<EmulatedModule>;
  /** An MP app (or batch) client of the vehicle; closed when the test ends. */
  app(id: string, type?: 'A' | 'B'): Promise<MpClient>;
  /** A plain MQTT client of the broker; ended when the test ends. */
  mqtt(opts?: IClientOptions): Promise<MqttClient>;
  request(path: string, opts?: RequestOptions): Promise<HttpResponse>;
  /** With the user's credentials in the query. */
  asUser(path: string, opts?: RequestOptions): Promise<HttpResponse>;
}

export async function mqttHarness(
  ctx: TestContext,
  broker: 'embedded' | 'mosquitto',
  mqtt: Partial<MqttConfig> = {},
  server: Partial<ServerConfig> = {},
): Promise<MqttHarness> {
  const run = randomBytes(4).toString('hex');
  const user = broker === 'embedded' ? 'demo' : `vtsbridge${run}`;
  if (broker === 'mosquitto') await mosquittoUp();
  const t = await startTestServer({
    rateLimit: { burst: 0 },
    ...server,
    mqtt:
      broker === 'embedded'
        ? { port: 0, tlsPort: null, wsPort: null, ...mqtt }
        : { port: null, tlsPort: null, wsPort: null, url: MOSQUITTO_URL, clientId: `vts${run}`, ...mqtt },
  });
  const password = 'demopass';
  const ownerId = await t.addUser(user, password);
  const brokerUrl = broker === 'embedded' ? `mqtt://127.0.0.1:${t.server.ports.mqtt!}` : MOSQUITTO_URL;
  const cleanups: (() => Promise<unknown>)[] = [];
  ctx.after(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    await t.close();
  });
  const h: MqttHarness = {
    t,
    ownerId,
    user,
    password,
    brokerUrl,
    async vehicle(id = `MQ${randomBytes(3).toString('hex').toUpperCase()}`) {
      await t.addVehicle(id, ownerId, 'NETPASS');
      return id;
    },
    async module(id, opts = {}) {
      const username = opts.username ?? user;
      const mod = new EmulatedModule({
        id,
        seed: 7,
        carPassword: 'NETPASS',
        adminPassword: 'admin',
        mqtt: { url: brokerUrl, username, password: opts.password ?? password, minBackoffMs: 200 },
        log: quiet,
      });
      cleanups.push(async () => {
        await mod.stop();
        if (broker === 'mosquitto') await cleanMosquitto(`ovms/${username}/${id}/`, id);
      });
      await mod.start();
      return mod;
    },
    async app(id, type = 'A') {
      const c = await MpClient.connect({ host: '127.0.0.1', port: t.mpPort, clientType: type, vehicleId: id, scheme: 0, password: 'NETPASS' });
      cleanups.push(() => c.close());
      return c;
    },
    async mqtt(opts = {}) {
      const c = await connectAsync(brokerUrl, { clean: true, reconnectPeriod: 0, connectTimeout: 5000, ...opts });
      cleanups.push(() => c.endAsync(true));
      return c;
    },
    request: (path, opts = {}) => send(t.server.ports.http!, path, opts),
    asUser: (path, opts) => h.request(withQuery(path, user === 'demo' ? DEMO_AUTH : `username=${user}&password=${password}`), opts),
  };
  return h;
}

/** Removes what a test left on Mosquitto (which keeps retained topics and sessions): retained topics under the prefix, the module's session. */
async function cleanMosquitto(prefix: string, clientId: string): Promise<void> {
  const o = await connectAsync(MOSQUITTO_URL, { clean: true, reconnectPeriod: 0 });
  const retained = new Set<string>();
  o.on('message', (topic, _p, packet) => {
    if (packet.retain) retained.add(topic);
  });
  await o.subscribeAsync(`${prefix}#`, { qos: 1 });
  const marker = `${prefix}zz-clean-marker`;
  await new Promise<void>((resolve) => {
    o.on('message', (topic) => {
      if (topic === marker) resolve();
    });
    void o.publishAsync(marker, 'x', { qos: 1 });
  });
  for (const topic of retained) await o.publishAsync(topic, '', { qos: 1, retain: true });
  await o.endAsync();
  const session = await connectAsync(MOSQUITTO_URL, { clientId, clean: true, reconnectPeriod: 0 });
  await session.endAsync();
}
