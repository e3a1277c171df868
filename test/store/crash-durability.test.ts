/**
 * "Seen" implies "durable": whatever a real `vts serve` has shown a client — an `/api/status`
 * answer, a car message forwarded to an app, a record on the dashboard's live stream — survives a
 * kill -9 that follows at once. Each loop: a car sends new values, the test waits until a client
 * sees them, kills the server with SIGKILL straight away, starts it again on the same data dir and
 * reads the values back. The kill lands well within the write-behind delay (100 ms), so a server
 * that shows buffered writes before committing them fails this nearly every loop. On the SQLite
 * file of a data dir, or on PostgreSQL with VTS_TEST_DATABASE (`vts serve --database`).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { hashPassword } from '../../src/auth/password.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { freshPlace, type Place } from './helpers.js';

const MAIN = new URL('../../src/cli/main.ts', import.meta.url).pathname;
const LOOPS = 9;
const VEHICLE = 'CRASHCAR';
const NETPASS = 'NETPASS';
const AUTH = 'username=demo&password=demopass';

interface Server {
  child: ChildProcess;
  mp: number;
  http: number;
  exit: Promise<void>;
}

const children = new Set<ChildProcess>();
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

async function serve(place: Place): Promise<Server> {
  const database = place.database === undefined ? [] : ['--database', place.database];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', MAIN, 'serve', '--data-dir', place.dir, ...database, '--bind', '127.0.0.1', '--mp-port', '0', '--http-port', '0',
      '--https-port', '0', '--mp-tls-port', '0', '--mqtt-port', 'off', '--rate-limit-burst', '0', '--log-level', 'warn'],
    { env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VTS_'))), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(child);
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ports = await new Promise<{ mp: number; http: number }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`vts serve exited (${code}): ${stderr.join('\n')}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const ev = JSON.parse(line) as { event?: string; mp?: number; http?: number };
      if (ev.event === 'listening') resolve({ mp: ev.mp!, http: ev.http! });
    });
  });
  return { child, exit, ...ports };
}

async function kill9(s: Server): Promise<void> {
  s.child.kill('SIGKILL');
  await s.exit;
  assert.equal(s.child.signalCode, 'SIGKILL');
}

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function status(port: number): Promise<Record<string, unknown>> {
  const r = await get(port, `/api/status/${VEHICLE}?${AUTH}`);
  assert.equal(r.status, 200, r.body);
  return JSON.parse(r.body) as Record<string, unknown>;
}

const mpClient = (port: number, clientType: 'A' | 'C'): Promise<MpClient> =>
  MpClient.connect({ host: '127.0.0.1', port, clientType, vehicleId: VEHICLE, scheme: 0, password: NETPASS });

/** The S and D of loop k: values no other loop sends. */
const values = (k: number): { S: string; D: string } => ({
  S: `${10 + k},K,220,${70 + k},charging,standard,280,270`,
  D: `${100 + k},8,4,30,40,25,123,${12345 + k},0,0,20`,
});

/** How the loop's client sees the values before the kill. */
type Witness = 'http' | 'app' | 'live';
const WITNESSES: readonly Witness[] = ['http', 'app', 'live'];

/**
 * `GET /api/live/<id>` (Server-Sent Events): `opened` once the stream said hello, `seen` once a
 * `record` event carries the S `wanted`.
 */
function liveStatus(port: number, wanted: string): { opened: Promise<void>; seen: Promise<void> } {
  let opened!: () => void;
  const openedP = new Promise<void>((r) => (opened = r));
  const seen = new Promise<void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: `/api/live/${VEHICLE}?${AUTH}`, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => {
        text += d;
        if (text.includes('event: hello')) opened();
        for (const m of text.matchAll(/^event: record\ndata: (.*)$/gm)) {
          const r = JSON.parse(m[1]!) as { code: string; data: string };
          if (r.code === 'S' && r.data === wanted) {
            resolve();
            req.destroy();
            return;
          }
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
  seen.catch(() => undefined); // the kill ends the stream; only a rejection before `seen` counts
  return { opened: openedP, seen };
}

test('kill -9 right after a client saw a car message: after a restart it is still there', async (t) => {
  const place = freshPlace(t);
  const store = await place.open();
  const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
  await store.addVehicle({ id: VEHICLE, ownerId: owner.id, name: VEHICLE, carPassword: NETPASS });
  await store.close();

  const lost: string[] = [];
  let server = await serve(place);
  for (let k = 1; k <= LOOPS; k++) {
    const witness = WITNESSES[k % WITNESSES.length]!;
    const { S, D } = values(k);
    const app = witness === 'app' ? await mpClient(server.mp, 'A') : null;
    if (app) await app.waitFor('T');
    const live = witness === 'live' ? liveStatus(server.http, S) : null;
    if (live) await live.opened;
    const car = await mpClient(server.mp, 'C');
    await car.waitFor('Z');
    car.send('D', D);
    car.send('S', S);
    if (witness === 'http') {
      // poll as fast as the server answers, kill as soon as the S shows
      while ((await status(server.http)).soc !== String(10 + k));
    } else if (witness === 'app') {
      while ((await app!.waitFor('S')).data !== S);
    } else {
      await live!.seen;
    }
    await kill9(server);
    await Promise.all([car.closed, app?.closed]);

    server = await serve(place);
    const after = await status(server.http);
    if (after.soc !== String(10 + k)) lost.push(`loop ${k} (${witness}): S soc ${String(after.soc)}, sent ${10 + k}`);
    const s2 = await openStoreReadOnly(place);
    if (s2.D !== D) lost.push(`loop ${k} (${witness}): D ${s2.D ?? 'missing'}`);
  }
  await kill9(server);
  assert.deepEqual(lost, [], 'what a client saw before the kill is stored');
});

/** The stored D of the vehicle, read by a second connection while the server runs. */
async function openStoreReadOnly(place: Place): Promise<{ D: string | undefined }> {
  const s = await place.open({ create: false });
  try {
    return { D: (await s.getCarMessages(VEHICLE)).find((m) => m.code === 'D')?.data };
  } finally {
    await s.close();
  }
}
