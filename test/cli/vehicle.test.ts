import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatUtc } from '../../src/core/time.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { dataDir, vts } from './admin-helpers.js';

async function inStore<T>(dir: string, fn: (s: Store) => Promise<T>): Promise<T> {
  const store = await openStore(dir);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function withUsers(dir: string): Promise<void> {
  for (const name of ['demo', 'alice']) {
    const r = await vts(['user', 'add', name, '--password', 'password', '--data-dir', dir]);
    assert.equal(r.code, 0, r.stderr);
  }
}

test('vehicle add: upper-cased id, owner by name (any case), password with commas, name and type', async (t) => {
  const dir = dataDir(t);
  await withUsers(dir);
  const r = await vts(['vehicle', 'add', 'demo1', '--owner', 'DEMO', '--password', 'pass,with,commas', '--name', 'My car', '--data-dir', dir]);
  assert.deepEqual(r, { code: 0, stdout: 'vehicle DEMO1 added\n', stderr: '' });
  const r2 = await vts(['vehicle', 'add', 'peer.srv', '--owner', 'alice', '--password', '-', '--type', 'server', '--data-dir', dir], 'from-stdin\n');
  assert.equal(r2.code, 0, r2.stderr);

  await inStore(dir, async (s) => {
    const v = await s.getVehicle('DEMO1');
    assert.equal(v?.ownerName, 'demo');
    assert.equal(v?.carPassword, 'pass,with,commas');
    assert.equal(v?.name, 'My car');
    assert.equal(v?.type, 'CAR');
    const p = await s.getVehicle('PEER.SRV');
    assert.equal(p?.type, 'SERVER');
    assert.equal(p?.carPassword, 'from-stdin');
    assert.equal(p?.ownerName, 'alice');
  });
});

test('vehicle add: duplicates, unknown owners and bad input are one-line errors', async (t) => {
  const dir = dataDir(t);
  await withUsers(dir);
  await vts(['vehicle', 'add', 'DEMO1', '--owner', 'demo', '--password', 'p', '--data-dir', dir]);
  const cases: [string[], string][] = [
    [['vehicle', 'add', 'Demo1', '--owner', 'demo', '--password', 'p'], 'vts: a vehicle with that id exists already: DEMO1 (VTS_ERR_DUPLICATE_VEHICLE)\n'],
    [['vehicle', 'add', 'NEW', '--owner', 'nobody', '--password', 'p'], 'vts: no such user: nobody (VTS_ERR_UNKNOWN_USER)\n'],
  ];
  for (const [args, stderr] of cases) {
    const r = await vts([...args, '--data-dir', dir]);
    assert.deepEqual(r, { code: 1, stdout: '', stderr });
  }
  const invalid: [string[], RegExp][] = [
    [['vehicle', 'add', 'bad id', '--owner', 'demo', '--password', 'p'], /vehicle id must be/],
    [['vehicle', 'add', 'X'.repeat(33), '--owner', 'demo', '--password', 'p'], /vehicle id must be/],
    [['vehicle', 'add', 'NEW', '--owner', 'demo', '--password', 'has space'], /without whitespace/],
    [['vehicle', 'add', 'NEW', '--owner', 'demo', '--password', 'p'.repeat(256)], /without whitespace/],
    [['vehicle', 'add', 'NEW', '--owner', 'demo', '--password', ''], /the password is empty/],
    [['vehicle', 'add', 'NEW', '--owner', 'demo', '--password', 'p', '--type', 'BOAT'], /CAR or SERVER/],
    [['vehicle', 'add', 'NEW', '--owner', 'bad owner', '--password', 'p'], /user name must be/],
  ];
  for (const [args, message] of invalid) {
    const r = await vts([...args, '--data-dir', dir]);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, message);
    assert.match(r.stderr, /^vts: .*\(VTS_ERR_INVALID_INPUT\)\n$/);
    assert.ok(!r.stderr.includes('has space'), 'the password is never printed');
  }
  const empty = await vts(['vehicle', 'add', 'NEW', '--owner', 'demo', '--password', '-', '--data-dir', dir], '');
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /the password is empty/);
  await inStore(dir, async (s) => assert.deepEqual((await s.listVehicles()).map((v) => v.id), ['DEMO1']));
});

test('vehicle list: table or JSON, optionally of one owner, never the password', async (t) => {
  const dir = dataDir(t);
  await withUsers(dir);
  await vts(['vehicle', 'add', 'ZED', '--owner', 'alice', '--password', 'secret-a', '--data-dir', dir]);
  await vts(['vehicle', 'add', 'DEMO1', '--owner', 'demo', '--password', 'secret-b', '--name', 'My car', '--data-dir', dir]);
  const time = 1_700_000_000;
  await inStore(dir, async (s) => {
    s.putCarMessage('DEMO1', { code: 'S', data: '1', time, paranoid: false, ptoken: '' });
  });

  const table = await vts(['vehicle', 'list', '--data-dir', dir]);
  assert.equal(table.code, 0);
  assert.equal(
    table.stdout,
    [
      'ID     OWNER  TYPE  LAST UPDATE (UTC)    NAME',
      `DEMO1  demo   CAR   ${formatUtc(time)}  My car`,
      'ZED    alice  CAR   -',
      '',
    ].join('\n'),
  );
  assert.ok(!table.stdout.includes('secret'));

  const json = await vts(['vehicle', 'list', '--owner', 'Alice', '--json', '--data-dir', dir]);
  assert.equal(json.code, 0);
  assert.deepEqual(JSON.parse(json.stdout), [{ id: 'ZED', owner: 'alice', name: '', type: 'CAR', lastUpdate: null }]);
  const all = await vts(['vehicle', 'list', '--json', '--data-dir', dir]);
  assert.equal((JSON.parse(all.stdout) as { lastUpdate: string }[])[0]?.lastUpdate, '2023-11-14 22:13:20');
  assert.ok(!all.stdout.includes('secret'));

  const unknown = await vts(['vehicle', 'list', '--owner', 'nobody', '--data-dir', dir]);
  assert.deepEqual(unknown, { code: 1, stdout: '', stderr: 'vts: no such user: nobody (VTS_ERR_UNKNOWN_USER)\n' });
});

test('vehicle remove: removes the vehicle and its data; unknown ids are errors', async (t) => {
  const dir = dataDir(t);
  await withUsers(dir);
  await vts(['vehicle', 'add', 'DEMO1', '--owner', 'demo', '--password', 'p', '--data-dir', dir]);
  await inStore(dir, async (s) => {
    s.putCarMessage('DEMO1', { code: 'S', data: '1', time: 1, paranoid: false, ptoken: '' });
    await s.addHistorical({ vehicleId: 'DEMO1', type: 'T', recordNumber: 0, time: 1, data: 'x', expires: 1e10 }, true);
  });
  assert.deepEqual(await vts(['vehicle', 'remove', 'demo1', '--data-dir', dir]), {
    code: 0,
    stdout: 'vehicle DEMO1 removed\n',
    stderr: '',
  });
  await inStore(dir, async (s) => {
    assert.equal(await s.getVehicle('DEMO1'), undefined);
    assert.deepEqual(await s.getCarMessages('DEMO1', true), []);
    assert.deepEqual(await s.summarizeHistorical('DEMO1', 0), []);
  });
  const again = await vts(['vehicle', 'remove', 'DEMO1', '--data-dir', dir]);
  assert.deepEqual(again, { code: 1, stdout: '', stderr: 'vts: no such vehicle: DEMO1 (VTS_ERR_UNKNOWN_VEHICLE)\n' });
});

test('admin commands work while another connection (the server) holds the database open', async (t) => {
  const dir = dataDir(t);
  await withUsers(dir);
  const server = await openStore(dir, { writeBehindMs: 20 });
  t.after(() => server.close().catch(() => undefined));
  const owner = (await server.getOwnerByName('demo'))!;
  await server.addVehicle({ id: 'BUSY', ownerId: owner.id, name: '', carPassword: 'p' });
  server.putCarMessage('BUSY', { code: 'S', data: 'x', time: 5, paranoid: false, ptoken: '' });

  const add = await vts(['vehicle', 'add', 'CLI1', '--owner', 'demo', '--password', 'p', '--data-dir', dir]);
  assert.equal(add.code, 0, add.stderr);
  // the server sees the CLI's change at once: no cached rows
  assert.equal((await server.getVehicle('CLI1'))?.ownerName, 'demo');
  const list = await vts(['vehicle', 'list', '--json', '--data-dir', dir]);
  assert.deepEqual(
    (JSON.parse(list.stdout) as { id: string }[]).map((v) => v.id),
    ['BUSY', 'CLI1'],
  );
  assert.equal((await vts(['vehicle', 'remove', 'CLI1', '--data-dir', dir])).code, 0);
  assert.equal(await server.getVehicle('CLI1'), undefined);
});
