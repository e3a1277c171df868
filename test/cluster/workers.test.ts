/**
 * `vts serve --workers 2 --cluster …`: two worker nodes on this machine share the ports and the
 * SQLite file; the listening line comes once; HTTP and MP are answered, a car and an app that land
 * on different workers meet; SIGTERM stops them all, exit 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../../src/auth/password.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { openStore } from '../../src/store/open.js';
import { m } from '../mp/helpers.js';
import { exitCode, listening, serveProcess } from '../cli/serve-process.js';
import { needs, redis, requireServices } from '../support/services.js';
import { nextOf, readUntil } from './harness.js';

const skip = await needs(redis);

test('--workers 2 serves and answers on the shared ports', { skip }, async (t) => {
  await requireServices(redis);
  const dir = mkdtempSync(join(tmpdir(), 'vts-workers-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = await openStore(dir);
  const owner = await store.addOwner('demo', await hashPassword('demopass', { N: 1024, r: 8, p: 1 }), '*');
  await store.addVehicle({ id: 'WCAR', ownerId: owner.id, name: '', carPassword: 'NETPASS' });
  await store.close();

  const prefix = `vtstest${randomBytes(4).toString('hex')}`;
  const run = serveProcess(['--workers', '2', '--cluster', 'redis://127.0.0.1:6379', '--cluster-prefix', prefix, '--data-dir', dir, '--mp-port', '0', '--http-port', '0', '--mqtt-port', '0']);
  t.after(() => run.child.kill('SIGKILL'));
  const ports = await listening(run);
  assert.equal(ports.workers, 2);
  const listeningLogs = () => run.stderr.filter((l) => l.includes('"msg":"vts listening"'));
  assert.equal(new Set(listeningLogs().map((l) => (JSON.parse(l) as { pid: number }).pid)).size, 2, 'two workers listen');

  for (let k = 0; k < 20; k++) {
    const res = await fetch(`http://127.0.0.1:${ports.http as number}/api/vehicles?username=demo&password=demopass`);
    assert.equal(res.status, 200);
    assert.deepEqual(((await res.json()) as { id: string }[]).map((v) => v.id), ['WCAR']);
  }

  // cars and apps on whichever worker: they meet
  const connect = (type: 'C' | 'A') => MpClient.connect({ host: '127.0.0.1', port: ports.mp as number, clientType: type, vehicleId: 'WCAR', scheme: 0, password: 'NETPASS' });
  const car = await connect('C');
  t.after(() => car.close());
  await car.next();
  // the workers learn of the car within milliseconds; wait until each of ten requests in a row
  // (spread over both workers) reports it, so that the apps' login replay has Z1 on either worker
  for (let seen = 0; seen < 10; ) {
    const res = await fetch(`http://127.0.0.1:${ports.http as number}/api/vehicles?username=demo&password=demopass`);
    const [row] = (await res.json()) as { v_net_connected: number }[];
    seen = row?.v_net_connected === 1 ? seen + 1 : 0;
    if (seen === 0) await new Promise((r) => setTimeout(r, 20));
  }
  const apps = [await connect('A'), await connect('A'), await connect('A')];
  t.after(() => Promise.all(apps.map((a) => a.close())));
  for (const app of apps) assert.deepEqual((await readUntil(app, 'T'))[0], m('Z', '1'));
  car.send('S', '42,K,220,13');
  for (const app of apps) assert.deepEqual(await nextOf(app, 'S'), m('S', '42,K,220,13'));

  run.child.kill('SIGTERM');
  assert.equal(await exitCode(run), 0);
  assert.equal(run.stdout.length, 1, 'the listening line, once');
});
