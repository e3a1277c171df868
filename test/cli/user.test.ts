import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyPassword } from '../../src/auth/password.js';
import { formatUtc } from '../../src/core/time.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { dataDir, vts } from './admin-helpers.js';
import { plainLines } from './spawn-helpers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function inStore<T>(dir: string, fn: (s: Store) => Promise<T>): Promise<T> {
  const store = await openStore(dir);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

test('user add: hashes the password, normalises rights, refuses duplicates in any case', async (t) => {
  const dir = dataDir(t);
  const r = await vts(['user', 'add', 'demo', '--password', 's3cret!!', '--data-dir', dir]);
  // the first user of a data dir creates its database, and says so once
  assert.deepEqual(r, { code: 0, stdout: 'user demo added\n', stderr: `vts: created a new database at ${dir}/vts.sqlite\n` });

  const r2 = await vts(['user', 'add', 'alice@example.org', '--password', 'pw-alice1', '--rights', ' Status , charge ', '--data-dir', dir]);
  assert.deepEqual(r2, { code: 0, stdout: 'user alice@example.org added\n', stderr: '' });

  await inStore(dir, async (s) => {
    const demo = await s.getOwnerByName('demo');
    assert.ok(demo);
    assert.equal(demo.rights, '*');
    assert.notEqual(demo.passwordHash, 's3cret!!');
    assert.ok(await verifyPassword('s3cret!!', demo.passwordHash));
    assert.equal((await s.getOwnerByName('alice@example.org'))?.rights, 'status,charge');
  });

  const dup = await vts(['user', 'add', 'DEMO', '--password', 'long-enough', '--data-dir', dir]);
  assert.equal(dup.code, 1);
  assert.equal(dup.stdout, '');
  assert.equal(dup.stderr, 'vts: a user with that name exists already: DEMO (VTS_ERR_DUPLICATE_USER)\n');
});

test('user add: bad input is a one-line error and a non-zero exit', async (t) => {
  const dir = dataDir(t);
  const cases: [string[], RegExp][] = [
    [['user', 'add', 'bad name', '--password', 'long-enough'], /user name must be/],
    [['user', 'add', 'x'.repeat(61), '--password', 'long-enough'], /user name must be/],
    [['user', 'add', 'bob', '--password', ''], /the password is empty/],
    [['user', 'add', 'bob', '--password', '1234567'], /the password must have at least 8 characters/],
    [['user', 'add', 'bob', '--password', 'x'.repeat(1025)], /longer than 1024 characters/],
    [['user', 'add', 'bob', '--password', 'long-enough', '--rights', ' , '], /empty rights/],
  ];
  for (const [args, message] of cases) {
    const r = await vts([...args, '--data-dir', dir]);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, message);
    assert.match(r.stderr, /^vts: .*\(VTS_ERR_INVALID_INPUT\)\n$/);
    assert.equal(r.stdout, '');
  }
  const missing = await vts(['user', 'add', 'bob', '--data-dir', dir]);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /required option '--password <password>' not specified/);
  await inStore(dir, async (s) => assert.deepEqual(await s.listOwners(), []));
});

test('user add --password - and user passwd read the first line of stdin; nothing prints a password', async (t) => {
  const dir = dataDir(t);
  const add = await vts(['user', 'add', 'demo', '--password', '-', '--data-dir', dir], 'from stdin\nsecond line\n');
  assert.equal(add.code, 0, add.stderr);
  await inStore(dir, async (s) => assert.ok(await verifyPassword('from stdin', (await s.getOwnerByName('demo'))!.passwordHash)));

  const p1 = await vts(['user', 'passwd', 'DEMO', '--data-dir', dir], 'piped-pw\r\n');
  assert.deepEqual(p1, { code: 0, stdout: 'password of user DEMO changed\n', stderr: '' });
  await inStore(dir, async (s) => assert.ok(await verifyPassword('piped-pw', (await s.getOwnerByName('demo'))!.passwordHash)));

  const p2 = await vts(['user', 'passwd', 'demo', '--password', 'given-pw', '--data-dir', dir]);
  assert.equal(p2.code, 0);
  assert.ok(!p2.stdout.includes('given'));
  await inStore(dir, async (s) => assert.ok(await verifyPassword('given-pw', (await s.getOwnerByName('demo'))!.passwordHash)));

  // the rule of src/core/auth/password-rule.ts, the one the dashboard applies: the old one stays
  const short = await vts(['user', 'passwd', 'demo', '--password', '-', '--data-dir', dir], 'seven77\n');
  assert.deepEqual(short, { code: 1, stdout: '', stderr: 'vts: invalid input: the password must have at least 8 characters (VTS_ERR_INVALID_INPUT)\n' });
  await inStore(dir, async (s) => assert.ok(await verifyPassword('given-pw', (await s.getOwnerByName('demo'))!.passwordHash)));

  const empty = await vts(['user', 'passwd', 'demo', '--password', '-', '--data-dir', dir], '\n');
  assert.equal(empty.code, 1);
  assert.match(empty.stderr, /the password is empty/);

  const unknown = await vts(['user', 'passwd', 'nobody', '--password', 'long-enough', '--data-dir', dir]);
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stderr, 'vts: no such user: nobody (VTS_ERR_UNKNOWN_USER)\n');
});

test('user list: a table with vehicle counts and UTC times, or JSON', async (t) => {
  const dir = dataDir(t);
  await inStore(dir, async () => undefined); // a database without users
  const empty = await vts(['user', 'list', '--data-dir', dir]);
  assert.deepEqual(empty, { code: 0, stdout: 'NAME  RIGHTS  ADMIN  DISABLED  VEHICLES  CREATED (UTC)\n', stderr: '' });

  await vts(['user', 'add', 'demo', '--password', 'password', '--data-dir', dir]);
  await vts(['user', 'add', 'alice', '--password', 'password', '--rights', 'status', '--data-dir', dir]);
  await vts(['vehicle', 'add', 'D1', '--owner', 'demo', '--password', 'p', '--data-dir', dir]);
  await vts(['vehicle', 'add', 'D2', '--owner', 'demo', '--password', 'p', '--data-dir', dir]);
  const created = await inStore(dir, async (s) => (await s.listOwners()).map((o) => formatUtc(o.created)));

  const table = await vts(['user', 'list', '--data-dir', dir]);
  assert.equal(table.code, 0);
  assert.equal(
    table.stdout,
    [
      'NAME   RIGHTS  ADMIN  DISABLED  VEHICLES  CREATED (UTC)',
      `alice  status  -      -         0         ${created[0]}`,
      `demo   *       -      -         2         ${created[1]}`,
      '',
    ].join('\n'),
  );
  assert.match(created[0]!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

  const json = await vts(['user', 'list', '--json', '--data-dir', dir]);
  assert.deepEqual(JSON.parse(json.stdout), [
    { name: 'alice', rights: 'status', admin: false, disabled: false, vehicles: 0, created: created[0] },
    { name: 'demo', rights: '*', admin: false, disabled: false, vehicles: 2, created: created[1] },
  ]);
});

test('user remove: refused while the user owns vehicles, unknown users are errors', async (t) => {
  const dir = dataDir(t);
  await vts(['user', 'add', 'demo', '--password', 'password', '--data-dir', dir]);
  await vts(['vehicle', 'add', 'D1', '--owner', 'demo', '--password', 'p', '--data-dir', dir]);

  const refused = await vts(['user', 'remove', 'demo', '--data-dir', dir]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^vts: the user still owns vehicles: .*\(VTS_ERR_USER_HAS_VEHICLES\)\n$/);

  await vts(['vehicle', 'remove', 'D1', '--data-dir', dir]);
  assert.deepEqual(await vts(['user', 'remove', 'Demo', '--data-dir', dir]), {
    code: 0,
    stdout: 'user Demo removed\n',
    stderr: '',
  });
  await inStore(dir, async (s) => assert.equal(await s.getOwnerByName('demo'), undefined));

  const again = await vts(['user', 'remove', 'demo', '--data-dir', dir]);
  assert.equal(again.code, 1);
  assert.equal(again.stderr, 'vts: no such user: demo (VTS_ERR_UNKNOWN_USER)\n');
});

test('user remove: the refusal says how to remove the vehicles too; --with-vehicles removes them with their data', async (t) => {
  const dir = dataDir(t);
  await vts(['user', 'add', 'demo', '--password', 'password', '--data-dir', dir]);
  await vts(['vehicle', 'add', 'DEMO1', '--owner', 'demo', '--password', 'p', '--data-dir', dir]);
  await inStore(dir, async (s) => {
    s.putCarMessage('DEMO1', { code: 'S', data: '80,K', time: 1_700_000_000, paranoid: false, ptoken: '' });
    await s.flush();
  });

  const refused = await vts(['user', 'remove', 'demo', '--data-dir', dir]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /demo owns 1 vehicle \(DEMO1\): vts user remove demo --with-vehicles removes it too, with its data \(VTS_ERR_USER_HAS_VEHICLES\)/);

  const r = await vts(['user', 'remove', 'demo', '--with-vehicles', '--data-dir', dir]);
  assert.deepEqual(r, { code: 0, stdout: 'user demo removed, with vehicle DEMO1\n', stderr: '' });
  await inStore(dir, async (s) => {
    assert.equal(await s.getOwnerByName('demo'), undefined);
    assert.equal(await s.getVehicle('DEMO1'), undefined);
    assert.deepEqual(await s.getCarMessages('DEMO1'), []);
  });
});

test('the data dir comes from VTS_DATA_DIR or a shared --config file (unknown keys ignored)', async (t) => {
  const dir = dataDir(t);
  const saved = process.env.VTS_DATA_DIR;
  process.env.VTS_DATA_DIR = dir;
  try {
    const r0 = await vts(['user', 'add', 'fromenv', '--password', 'password']);
    assert.equal(r0.code, 0, r0.stderr);
  } finally {
    if (saved === undefined) delete process.env.VTS_DATA_DIR;
    else process.env.VTS_DATA_DIR = saved;
  }
  const config = join(dir, '..', 'vts.json');
  writeFileSync(config, JSON.stringify({ 'data-dir': dir, 'mp-port': 6867, logLevel: 'debug' }));
  const r = await vts(['user', 'list', '--json', '--config', config]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    (JSON.parse(r.stdout) as { name: string }[]).map((u) => u.name),
    ['fromenv'],
  );
});

test('vts user add as a child process, with the password on stdin', async (t) => {
  const dir = dataDir(t);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'user', 'add', 'child', '--password', '-', '--data-dir', dir],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, VTS_CONFIG: '' } },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end('child password\n');
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  // besides the audit line (a JSON log line)
  assert.deepEqual(plainLines(stderr), [`vts: created a new database at ${dir}/vts.sqlite`]);
  assert.equal(code, 0);
  assert.equal(stdout, 'user child added\n');
  await inStore(dir, async (s) => assert.ok(await verifyPassword('child password', (await s.getOwnerByName('child'))!.passwordHash)));

  // the same name again: exit code 1 and the one-line message
  const dup = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), 'user', 'add', 'CHILD', '--password', 'long-enough', '--data-dir', dir],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let dupErr = '';
  dup.stderr.setEncoding('utf8').on('data', (d: string) => (dupErr += d));
  const dupCode = await new Promise<number | null>((resolve) => dup.on('close', resolve));
  assert.equal(dupCode, 1);
  assert.equal(dupErr, 'vts: a user with that name exists already: CHILD (VTS_ERR_DUPLICATE_USER)\n');
});
