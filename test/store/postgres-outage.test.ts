/**
 * `vts serve` on PostgreSQL reached through a TCP proxy of the test's own that can cut the database
 * off (refuse and drop every connection) and let it back. While it is away, what the cars send is
 * held: apps see none of it, reads of it are refused; once it is back, the apps get it in order,
 * and `/api/status` and a new app's replay agree with what they were shown; nothing acknowledged is
 * lost. A car past its share of the hold bound, and any car once the bound is reached, is read no
 * further until the database answers; the other cars go on.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MpClient, type MpMessage } from '../../src/mp-client/mp-client.js';
import { openStore } from '../../src/store/open.js';
import { hashPassword } from '../../src/auth/password.js';
import { FREE_PORTS, exitCode, listening, serveProcess, type Running } from '../cli/serve-process.js';
import { freshSchema } from '../support/postgres.js';
import { needs, postgres, requireServices } from '../support/services.js';
import { proxyPostgres, type TcpProxy } from '../support/tcp-proxy.js';

const skip = await needs(postgres);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Setup {
  serve: Running;
  mp: number;
  http: number;
  proxy: TcpProxy;
  /** The schema's URL (straight to PostgreSQL). */
  url: string;
}

/** A schema with user `demo` (password demopass) and the vehicles, served through the proxy. */
async function setup(t: { after: (fn: () => unknown) => void }, vehicles: string[], args: string[] = []): Promise<Setup> {
  await requireServices(postgres);
  const s = freshSchema();
  t.after(() => s.drop());
  const store = await openStore('', { database: s.url });
  const owner = await store.addOwner('demo', await hashPassword('demopass'), '*');
  for (const id of vehicles) await store.addVehicle({ id, ownerId: owner.id, name: id, carPassword: 'NETPASS' });
  await store.close();
  const { proxy, url: through } = await proxyPostgres(s.url);
  t.after(() => proxy.close());
  const serve = serveProcess([...FREE_PORTS, '--log-level', 'debug', '--database', through, ...args]);
  t.after(() => {
    if (serve.child.exitCode === null) serve.child.kill('SIGKILL');
  });
  const ports = await listening(serve);
  return { serve, mp: ports.mp as number, http: ports.http as number, proxy, url: s.url };
}

async function client(t: { after: (fn: () => unknown) => void }, mp: number, clientType: 'C' | 'A', vehicleId: string): Promise<MpClient> {
  const c = await MpClient.connect({ host: '127.0.0.1', port: mp, clientType, vehicleId, scheme: 0, password: 'NETPASS' });
  t.after(() => c.close());
  return c;
}

/**
 * Resolves once the server has said that it holds the writes (the database does not answer, past
 * the scheduled tries): a debug line (the outage's own line comes at its first failure, before).
 */
async function holding(serve: Running, unless: () => boolean = () => false): Promise<void> {
  while (!serve.stderr.some((l) => l.includes('writes are held and tried again until it does')) && !unless()) await sleep(20);
}

const socs = (ms: MpMessage[]): string[] => ms.filter((m) => m.code === 'S').map((m) => m.data.split(',')[0]!);
const S = (soc: number): string => `${soc},K,220,70,charging,standard,280,270`;

test('PostgreSQL away: car messages are held, not forwarded; then forwarded in order, and status and replay agree', { skip }, async (t) => {
  const { serve, mp, http, proxy, url } = await setup(t, ['PGOUT']);
  const car = await client(t, mp, 'C', 'PGOUT');
  const app = await client(t, mp, 'A', 'PGOUT');
  car.send('S', S(51));
  await app.waitFor((m) => m.code === 'S' && m.data.startsWith('51,'));

  proxy.cut();
  for (let soc = 52; soc <= 56; soc++) car.send('S', S(soc));
  for (let k = 1; k <= 3; k++) car.send('h', `${k},0,*-LOG-Outage,${k},86400,during ${k}`);
  const shown: MpMessage[] = [];
  app.on('message', (m) => shown.push(m));
  const acks: string[] = [];
  car.on('message', (m) => {
    if (m.code === 'h') acks.push(m.data);
  });
  await holding(serve, () => socs(shown).length > 0);
  assert.deepEqual(socs(shown), [], 'the app is shown nothing the database has not taken');
  assert.deepEqual(acks, [], 'no h record is acknowledged before it is stored');
  const during = await fetch(`http://127.0.0.1:${http}/api/status/PGOUT?username=demo&password=demopass`);
  assert.notEqual(during.status, 200, 'no status from memory while the database is away');

  proxy.restore();
  while (socs(shown).length < 5 || acks.length < 3) await sleep(20);
  assert.deepEqual(socs(shown), ['52', '53', '54', '55', '56'], 'all of them, in order');
  assert.deepEqual(acks.sort(), ['1', '2', '3']);

  let status: Response;
  while ((status = await fetch(`http://127.0.0.1:${http}/api/status/PGOUT?username=demo&password=demopass`)).status !== 200) await sleep(50);
  assert.equal(((await status.json()) as { soc: string }).soc, '56', '/api/status shows what the app was shown last');
  const late = await client(t, mp, 'A', 'PGOUT');
  const replayed = await late.waitFor('S');
  assert.equal(replayed.data.split(',')[0], '56', "a new app's replay shows it too");

  const store = await openStore('', { database: url });
  t.after(() => store.close());
  const records = await store.getHistorical('PGOUT', '*-log-outage', 0);
  assert.deepEqual(records.map((r) => r.data).sort(), ['during 1', 'during 2', 'during 3'], 'every acknowledged record is stored');
});

test('PostgreSQL away, a small hold bound: a car past its share, then any car once the bound is reached, is read no further; the others go on', { skip }, async (t) => {
  const cars = ['BP0', 'BP1', 'BP2', 'BP3', 'BP4', 'BP5'];
  // a bound of 40 held writes: each car's share is 10 messages per commit
  const { serve, mp, proxy } = await setup(t, cars, ['--hold-writes', '40']);
  const conns = await Promise.all(cars.map((id) => client(t, mp, 'C', id)));
  const app = await client(t, mp, 'A', 'BP0');
  const pongs = conns.map(() => 0);
  conns.forEach((c, k) =>
    c.on('message', (m) => {
      if (m.code === 'a') pongs[k]!++;
    }),
  );
  // the app is in (its replay read) before the database goes
  conns[0]!.send('S', S(0));
  await app.waitFor((m) => m.code === 'S' && m.data.startsWith('0,'));
  const shown: MpMessage[] = [];
  app.on('message', (m) => shown.push(m));
  proxy.cut();

  // BP0 floods: it is paused at its share, and its ping is not read while the database is away
  for (let soc = 1; soc <= 30; soc++) conns[0]!.send('S', S(soc));
  conns[0]!.send('A');
  await holding(serve, () => pongs[0]! > 0);
  // another car goes on: its ping is answered
  conns[1]!.send('S', S(70));
  conns[1]!.send('A');
  while (pongs[1] === 0) await sleep(20);
  // three more cars send their share: 10 (BP0) + 1 (BP1) + 30 = 41 held writes, the bound is reached
  for (const k of [2, 3, 4]) {
    for (let soc = 1; soc <= 10; soc++) conns[k]!.send('S', S(soc));
    conns[k]!.send('A');
  }
  // the next car's first message finds the bound reached: it is read no further either
  await sleep(500);
  conns[5]!.send('S', S(90));
  conns[5]!.send('A');
  await sleep(500);
  assert.equal(pongs[0], 0, 'the flooding car is paused');
  assert.equal(pongs[5], 0, 'past the bound, any car is paused');
  assert.deepEqual(socs(shown), [], 'nothing forwarded meanwhile');

  proxy.restore();
  while (pongs[0] === 0 || pongs[5] === 0) await sleep(20);
  while (socs(shown).length < 30) await sleep(20);
  assert.deepEqual(
    socs(shown),
    Array.from({ length: 30 }, (_, k) => String(k + 1)),
    'every message of the paused car, in order: none dropped',
  );
});

test('PostgreSQL away: vts serve still stops on SIGTERM, and says that what it held is lost', { skip }, async (t) => {
  const { serve, mp, proxy } = await setup(t, ['PGSTOP']);
  const car = await client(t, mp, 'C', 'PGSTOP');
  car.send('S', S(1));
  proxy.cut();
  car.send('S', S(2));
  car.send('h', '1,0,*-LOG-Stop,1,86400,never stored');
  await holding(serve);
  serve.child.kill('SIGTERM');
  // it stops (an error: what it held is lost), saying so
  assert.equal(await exitCode(serve), 1);
  assert.ok(
    serve.stderr.some((l) => /does not answer at shutdown .*buffered writes are lost/.test(l)),
    serve.stderr.join('\n'),
  );
});
