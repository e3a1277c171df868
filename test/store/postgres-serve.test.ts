/**
 * The admin commands and `vts serve` on PostgreSQL (`--database`): `user add` creates the schema,
 * the other commands need one, and an `h` record whose ack the car got survives a kill -9 of the
 * server. Runs in the plain test pass too, on VTS_TEST_DATABASE or this machine's `test` database.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MpClient, type MpMessage } from '../../src/mp-client/mp-client.js';
import { openStore } from '../../src/store/open.js';
import { vts } from '../cli/admin-helpers.js';
import { FREE_PORTS, listening, serveProcess } from '../cli/serve-process.js';
import { PG_TEST_URL, freshSchema } from '../support/postgres.js';
import { needs, postgres, requireServices } from '../support/services.js';

const skip = await needs(postgres);

test('admin commands and vts serve on PostgreSQL; an acknowledged h record survives a kill -9', { skip }, async (t) => {
  await requireServices(postgres);
  const s = freshSchema();
  t.after(() => s.drop());
  const db = ['--database', s.url];
  const shown = `postgres://root@127.0.0.1:5432/${new URL(PG_TEST_URL).pathname.slice(1)}`;

  const none = await vts(['vehicle', 'list', ...db]);
  assert.equal(none.code, 1);
  assert.equal(
    none.stderr,
    `vts: no vts database at ${shown}: the schema ${s.schema} does not exist: check --database (or VTS_DATABASE), or create one with 'vts user add NAME --password -' or 'vts serve' (VTS_ERR_NO_DATABASE)\n`,
  );
  const add = await vts(['user', 'add', 'demo', '--password', '-', ...db], 'demopass\n');
  assert.equal(add.code, 0, add.stderr);
  assert.equal(add.stderr, `vts: created a new database at ${shown} (schema ${s.schema})\n`);
  assert.equal((await vts(['vehicle', 'add', 'PGCAR', '--owner', 'DEMO', '--password', 'NETPASS', ...db])).code, 0);
  const users = JSON.parse((await vts(['user', 'list', '--json', ...db])).stdout) as { name: string; vehicles: number }[];
  assert.deepEqual(users.map((u) => [u.name, u.vehicles]), [['demo', 1]]);

  const serve = serveProcess([...FREE_PORTS, '--log-level', 'warn', ...db]);
  const ports = await listening(serve);
  const car = await MpClient.connect({ host: '127.0.0.1', port: ports.mp as number, clientType: 'C', vehicleId: 'PGCAR', scheme: 0, password: 'NETPASS' });
  t.after(() => car.close());
  for (let k = 1; k <= 5; k++) car.send('h', `${k},0,*-LOG-Trip,${k},86400,trip ${k}`);
  const acks: string[] = [];
  while (acks.length < 5) {
    const m: MpMessage = await car.next();
    if (m.code === 'h') acks.push(m.data);
  }
  serve.child.kill('SIGKILL');
  await serve.exit;
  assert.deepEqual(acks.sort(), ['1', '2', '3', '4', '5']);

  const store = await openStore('', { database: s.url, create: false });
  t.after(() => store.close());
  const records = await store.getHistorical('PGCAR', '*-log-trip', 0);
  assert.deepEqual(records.map((r) => [r.recordNumber, r.data]).sort(), [1, 2, 3, 4, 5].map((k) => [k, `trip ${k}`]));

  assert.equal((await vts(['vehicle', 'remove', 'PGCAR', ...db])).code, 0);
  assert.deepEqual(await store.listVehicles(), [], 'the removal by the other process is seen at once');
});
