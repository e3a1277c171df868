/**
 * A real server on an injected clock, a real MP car playing a ScriptedCar's day record by record
 * (live messages as they come, firmware logs as acknowledged `h` records with their age), and
 * the owner's view of the result through the web API.
 */
import type { TestContext } from 'node:test';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { GRID_LOG } from '../../src/core/drives/tracker.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { send } from '../http/helpers.js';
import type { Arriving } from '../support/drive-records.js';
import type { ServerConfig } from '../../src/server/server.js';

export interface Clock {
  /** Epoch seconds. */
  t: number;
}

export interface DriveServer {
  t: TestServer;
  clock: Clock;
  ownerId: number;
  /** The demo owner's cookie. */
  cookie: string;
  get(path: string): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }>;
  json<T>(path: string): Promise<T>;
  /** Waits until the recorder has done what it was given, after ticking it at the clock's time. */
  settle(): Promise<void>;
}

/**
 * Starts a server (or restarts one on the same database: `reuse`) with the vehicle TESTCAR of
 * `demo`; `config` adds to the server's configuration (e.g. the embedded MQTT broker).
 */
export async function driveServer(ctx: TestContext, clock: Clock, reuse?: TestServer, config: Partial<ServerConfig> = {}): Promise<DriveServer> {
  const t = await startTestServer({
    ...config,
    clock: () => clock.t * 1000,
    rateLimit: { burst: 0 },
    // the clock runs through a day: the API session must last
    sessionTimeout: 30 * 86400,
    ...(reuse ? { dataDir: reuse.dataDir, database: reuse.database } : {}),
  });
  ctx.after(() => t.close());
  let ownerId: number;
  if (reuse) {
    ownerId = (await t.server.store.getOwnerByName('demo'))!.id;
  } else {
    ownerId = await t.addUser('demo', 'demopass');
    await t.addVehicle('TESTCAR', ownerId, 'NETPASS');
  }
  const port = t.server.ports.http!;
  const login = await send(port, '/api/cookie?username=demo&password=demopass');
  const cookie = String(login.headers['set-cookie']?.[0] ?? '').split(';', 1)[0]!;
  const get = (path: string) => send(port, path, { headers: { cookie } });
  return {
    t,
    clock,
    ownerId,
    cookie,
    get,
    async json<T>(path: string): Promise<T> {
      const r = await get(path);
      if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.body}`);
      return JSON.parse(r.body) as T;
    },
    async settle() {
      const recorder = t.server.recorder!;
      // what the car sent is committed, and so heard by the recorder
      await t.server.store.flush();
      recorder.tickAll();
      await recorder.settled();
    },
  };
}

/** Logs the car in. */
export function connectCar(s: DriveServer): Promise<MpClient> {
  return MpClient.connect({ host: '127.0.0.1', port: s.t.mpPort, clientType: 'C', vehicleId: 'TESTCAR', scheme: 0, password: 'NETPASS' });
}

/**
 * Plays the records that arrive in [from, to) through the car: the clock is set to each arrival,
 * everything arriving then is sent (logs as `h` records with their negative age), and the server's
 * answers (`a` to a ping, an `h` ack per log) are awaited before the clock moves on.
 */
export async function play(s: DriveServer, car: MpClient, records: readonly Arriving[], from = -Infinity, to = Infinity): Promise<void> {
  const due = records
    .map((r, i) => ({ r, i }))
    .filter(({ r }) => r.arrival >= from && r.arrival < to)
    .sort((a, b) => a.r.arrival - b.r.arrival || a.i - b.i);
  let ack = 0;
  for (let k = 0; k < due.length; ) {
    const arrival = due[k]!.r.arrival;
    s.clock.t = arrival;
    const acks = new Set<string>();
    for (; k < due.length && due[k]!.r.arrival === arrival; k++) {
      const { input } = due[k]!.r;
      if (input.code.length === 1) car.send(input.code, input.data);
      else {
        const code = String(++ack);
        acks.add(code);
        car.send('h', `${code},${input.time - arrival},${input.code},${input.code === GRID_LOG ? 2 : 1},604800,${input.data}`);
      }
    }
    car.send('A');
    let pong = false;
    while (!pong || acks.size > 0) {
      const m = await car.next();
      if (m.code === 'a') pong = true;
      else if (m.code === 'h') acks.delete(m.data);
    }
    await s.settle();
  }
}
