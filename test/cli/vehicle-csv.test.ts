/** `vts vehicle add --from-csv` (src/cli/vehicle-csv.ts) on a real SQLite data dir. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openStore } from '../../src/store/open.js';
import { dataDir, vts } from './admin-helpers.js';

async function setUp(t: Parameters<typeof dataDir>[0]): Promise<{ dir: string; file: (name: string, text: string) => string }> {
  const dir = dataDir(t);
  for (const name of ['demo', 'alice']) {
    const r = await vts(['user', 'add', name, '--password', 'password', '--data-dir', dir]);
    assert.equal(r.code, 0, r.stderr);
  }
  return {
    dir,
    file: (name, text) => {
      const path = join(dirname(dir), name);
      writeFileSync(path, text);
      return path;
    },
  };
}

test('vehicle add --from-csv: every good row added, each bad one reported with its line and skipped, exit 2', async (t) => {
  const { dir, file } = await setUp(t);
  await vts(['vehicle', 'add', 'TAKEN', '--owner', 'demo', '--password', 'old-secret', '--data-dir', dir]);
  const csv = file(
    'fleet.csv',
    '\uFEFFid,owner,password,name\r\n' +
      'car1,demo,secret-1,First car\r\n' +
      'CAR2,Alice,"pass,with,commas","Quoted, ""named"""\r\n' +
      'bad id,demo,secret-3,\r\n' +
      'CAR4,nobody,secret-4,\r\n' +
      'taken,demo,secret-5,\r\n' +
      'CAR6,demo,has space,\r\n' +
      'CAR7,demo,secret-7\r\n' +
      'car1,alice,secret-8,again\r\n' +
      '\r\n' +
      'CAR9,demo,secret-9,"two\nlines"\r\n' +
      'CAR10,alice,secret-10,Last\r\n',
  );
  const r = await vts(['vehicle', 'add', '--from-csv', csv, '--data-dir', dir]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, `3 vehicles added from ${csv}\n`);
  assert.equal(
    r.stderr,
    [
      'vts: line 4: vehicle id must be 1-32 characters of A-Z a-z 0-9 . _ -: "bad id": skipped',
      'vts: line 5: no such user: nobody: skipped',
      'vts: line 6: a vehicle with that id exists already: TAKEN: skipped',
      'vts: line 7: a car password must be 1-255 characters without whitespace: skipped',
      'vts: line 8: 3 fields where the header has 4: skipped',
      'vts: line 9: a vehicle with that id exists already: CAR1: skipped',
      'vts: line 11: the vehicle name contains control characters: skipped',
      'vts: 7 rows were not added (printed above)',
      '',
    ].join('\n'),
  );
  assert.ok(!r.stderr.includes('has space'), 'no password is printed');
  const store = await openStore(dir);
  try {
    const vehicles = await store.listVehicles();
    assert.deepEqual(
      vehicles.map((v) => [v.id, v.ownerName, v.name, v.carPassword, v.type]),
      [
        ['CAR1', 'demo', 'First car', 'secret-1', 'CAR'],
        ['CAR10', 'alice', 'Last', 'secret-10', 'CAR'],
        ['CAR2', 'alice', 'Quoted, "named"', 'pass,with,commas', 'CAR'],
        ['TAKEN', 'demo', '', 'old-secret', 'CAR'],
      ],
    );
  } finally {
    await store.close();
  }
});

test('vehicle add --from-csv: columns in any order, name optional, --type for all, stdin, exit 0 when all are added', async (t) => {
  const { dir, file } = await setUp(t);
  const csv = file('peers.csv', 'Password,ID,Owner\nsecret-a,PEER1,demo\nsecret-b,PEER2,alice\n');
  const r = await vts(['vehicle', 'add', '--from-csv', csv, '--type', 'server', '--data-dir', dir]);
  assert.deepEqual(r, { code: 0, stdout: `2 vehicles added from ${csv}\n`, stderr: '' });
  const fromStdin = await vts(['vehicle', 'add', '--from-csv', '-', '--data-dir', dir], 'id,owner,password\nS1,demo,pw\n');
  assert.deepEqual(fromStdin, { code: 0, stdout: '1 vehicle added from -\n', stderr: '' });
  const store = await openStore(dir);
  try {
    assert.deepEqual(
      (await store.listVehicles()).map((v) => [v.id, v.ownerName, v.type, v.carPassword]),
      [
        ['PEER1', 'demo', 'SERVER', 'secret-a'],
        ['PEER2', 'alice', 'SERVER', 'secret-b'],
        ['S1', 'demo', 'CAR', 'pw'],
      ],
    );
  } finally {
    await store.close();
  }
});

test('vehicle add --from-csv: a bad header, a missing file or arguments besides the file are errors, nothing added', async (t) => {
  const { dir, file } = await setUp(t);
  const cases: [string[], string][] = [
    [['--from-csv', file('a.csv', 'id,owner\nX,demo\n')], 'vts: invalid input: the first row must name the columns id,owner,password[,name] (no column password) (VTS_ERR_INVALID_INPUT)\n'],
    [['--from-csv', file('b.csv', 'id,owner,password,colour\n')], 'vts: invalid input: the first row must name the columns id,owner,password[,name] (unknown column "colour") (VTS_ERR_INVALID_INPUT)\n'],
    [['--from-csv', file('c.csv', '')], `vts: invalid input: ${join(dirname(dir), 'c.csv')} is empty: the first row must name the columns id,owner,password[,name] (VTS_ERR_INVALID_INPUT)\n`],
    [['--from-csv', join(dirname(dir), 'none.csv')], `vts: invalid input: cannot read ${join(dirname(dir), 'none.csv')}: ENOENT (VTS_ERR_INVALID_INPUT)\n`],
  ];
  for (const [args, stderr] of cases) assert.deepEqual(await vts(['vehicle', 'add', ...args, '--data-dir', dir]), { code: 1, stdout: '', stderr });
  const extra = await vts(['vehicle', 'add', 'X1', '--from-csv', file('d.csv', 'id,owner,password\n'), '--data-dir', dir]);
  assert.equal(extra.code, 1);
  assert.match(extra.stderr, /^vts: --from-csv takes the ids, owners, passwords and names from the file/);
  const missing = await vts(['vehicle', 'add', '--owner', 'demo', '--password', 'p', '--data-dir', dir]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^vts: missing required argument 'id'\n/);
  const store = await openStore(dir);
  try {
    assert.deepEqual(await store.listVehicles(), []);
  } finally {
    await store.close();
  }
});

test('vehicle add --from-csv: 5,000 rows in one go', async (t) => {
  const { dir, file } = await setUp(t);
  const lines = ['id,owner,password'];
  for (let k = 0; k < 5000; k++) lines.push(`F${k},demo,pass-${k}`);
  const r = await vts(['vehicle', 'add', '--from-csv', file('big.csv', lines.join('\n')), '--data-dir', dir]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^5,000 vehicles added from /);
  const store = await openStore(dir);
  try {
    assert.equal((await store.listVehicles()).length, 5000);
  } finally {
    await store.close();
  }
});
