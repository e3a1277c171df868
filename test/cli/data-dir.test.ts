/**
 * The admin commands and their --data-dir: a mistyped one is refused (never a new empty
 * database), `vts user add` creates a new database and says so once, and a data dir or database
 * that cannot be used (a file, not a database, no permission, read-only, /proc) is one line
 * `vts: …` that names the path and what to do; the stack only with VTS_LOG_LEVEL=debug.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir, vts } from './admin-helpers.js';
import { hasStack, spawnVts, tempFolder } from './spawn-helpers.js';

const PASSWORD = 'password';
const HOW = "check --data-dir, or create one with 'vts user add NAME --password -' or 'vts serve'";

/** Every admin command but `user add`, which creates a database: they need an existing one. */
const NEED_A_DATABASE: string[][] = [
  ['user', 'list'],
  ['user', 'list', '--json'],
  ['user', 'passwd', 'demo', '--password', PASSWORD],
  ['user', 'remove', 'demo'],
  ['vehicle', 'list'],
  ['vehicle', 'add', 'DEMO1', '--owner', 'demo', '--password', 'NETPASS'],
  ['vehicle', 'remove', 'DEMO1'],
];

test('a data dir that does not exist is refused by every command but user add, and not created', async (t) => {
  const dir = dataDir(t);
  for (const args of NEED_A_DATABASE) {
    const r = await vts([...args, '--data-dir', dir]);
    assert.deepEqual(
      r,
      { code: 1, stdout: '', stderr: `vts: no vts database at ${dir}/vts.sqlite (the folder ${dir} does not exist): ${HOW} (VTS_ERR_NO_DATABASE)\n` },
      args.join(' '),
    );
    assert.ok(!existsSync(dir), `${args.join(' ')} created ${dir}`);
  }
  // a folder without a database: the same, and no database appears in it
  mkdirSync(dir);
  for (const args of NEED_A_DATABASE) {
    const r = await vts([...args, '--data-dir', dir]);
    assert.deepEqual(r, { code: 1, stdout: '', stderr: `vts: no vts database at ${dir}/vts.sqlite: ${HOW} (VTS_ERR_NO_DATABASE)\n` }, args.join(' '));
    assert.ok(!existsSync(join(dir, 'vts.sqlite')), args.join(' '));
  }
});

test('user passwd refuses a missing database before it asks for the password (the real CLI, stdin left open)', async (t) => {
  const dir = dataDir(t);
  const r = await spawnVts(['user', 'passwd', 'demo', '--data-dir', dir], { stdin: 'open' });
  assert.equal(r.code, 1, `a child waiting for a password is killed (null): ${r.stderr}`);
  assert.equal(r.stderr, `vts: no vts database at ${dir}/vts.sqlite (the folder ${dir} does not exist): ${HOW} (VTS_ERR_NO_DATABASE)\n`);
});

test('user add creates the data dir and the database and says so once, on stderr', async (t) => {
  const dir = join(dataDir(t), 'deeper');
  const first = await vts(['user', 'add', 'demo', '--password', PASSWORD, '--data-dir', dir]);
  assert.deepEqual(first, { code: 0, stdout: 'user demo added\n', stderr: `vts: created a new database at ${dir}/vts.sqlite\n` });
  const second = await vts(['user', 'add', 'alice', '--password', PASSWORD, '--data-dir', dir]);
  assert.deepEqual(second, { code: 0, stdout: 'user alice added\n', stderr: '' });
  for (const args of NEED_A_DATABASE.slice(0, 2)) {
    const r = await vts([...args, '--data-dir', dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
  }
  // a path given with a trailing slash is shown as given
  const other = dataDir(t);
  const slash = await vts(['user', 'add', 'demo', '--password', PASSWORD, '--data-dir', `${other}/`]);
  assert.equal(slash.stderr, `vts: created a new database at ${other}/vts.sqlite\n`);
});

test('a data dir that is a file, a path through a file, a database that is not one, a database that is a folder', async (t) => {
  const parent = tempFolder(t);
  const file = join(parent, 'a-file');
  writeFileSync(file, 'x');
  const junk = join(parent, 'junk');
  mkdirSync(junk);
  const bytes = Buffer.alloc(8192, 0xa5);
  writeFileSync(join(junk, 'vts.sqlite'), bytes);
  const folder = join(parent, 'folder');
  mkdirSync(join(folder, 'vts.sqlite'), { recursive: true });

  const notAFolder = `vts: the data directory ${file} is a file, not a folder: point --data-dir at a folder (VTS_ERR_DATA_DIR)\n`;
  const notADatabase = `vts: ${junk}/vts.sqlite is not a vts database (SQLite: file is not a database): point --data-dir at another folder or move the file away (VTS_ERR_DATABASE)\n`;
  const cases: [string[], string][] = [
    [['user', 'list', '--data-dir', file], notAFolder],
    [['user', 'add', 'demo', '--password', PASSWORD, '--data-dir', file], notAFolder],
    [
      ['user', 'add', 'demo', '--password', PASSWORD, '--data-dir', join(file, 'data')],
      `vts: cannot create the data directory ${join(file, 'data')}: a part of the path is a file, not a folder: point --data-dir at a folder (VTS_ERR_DATA_DIR)\n`,
    ],
    [['user', 'list', '--data-dir', junk], notADatabase],
    [['vehicle', 'list', '--data-dir', junk], notADatabase],
    [['user', 'add', 'demo', '--password', PASSWORD, '--data-dir', junk], notADatabase],
    [
      ['user', 'list', '--data-dir', folder],
      `vts: ${folder}/vts.sqlite is a folder, not a database file: point --data-dir at another folder or move the file away (VTS_ERR_DATABASE)\n`,
    ],
  ];
  for (const [args, stderr] of cases) assert.deepEqual(await vts(args), { code: 1, stdout: '', stderr }, args.join(' '));
  assert.deepEqual(readFileSync(join(junk, 'vts.sqlite')), bytes, 'the file that is not a database is left as it was');
  assert.equal(readFileSync(file, 'utf8'), 'x');
});

test('a data dir under /proc: one line and exit 1 (Node\'s recursive mkdir would spin forever)', async () => {
  const r = await spawnVts(['user', 'add', 'demo', '--password', PASSWORD, '--data-dir', '/proc/vts-no-such-dir/data']);
  assert.deepEqual(r, {
    code: 1,
    stdout: '',
    stderr:
      'vts: cannot create the data directory /proc/vts-no-such-dir/data: /proc takes no new folders (ENOENT): point --data-dir at another folder (VTS_ERR_DATA_DIR)\n',
  });
});

test('VTS_LOG_LEVEL=debug adds the stack of the error and of its cause; without it, one line', async (t) => {
  const junk = tempFolder(t);
  writeFileSync(join(junk, 'vts.sqlite'), Buffer.alloc(4096, 0x5a));
  const plain = await spawnVts(['user', 'list', '--data-dir', junk]);
  assert.equal(plain.code, 1);
  assert.equal(plain.stderr.split('\n').length, 2, plain.stderr);
  assert.ok(!hasStack(plain.stderr));
  const debug = await spawnVts(['user', 'list', '--data-dir', junk], { env: { VTS_LOG_LEVEL: 'debug' } });
  assert.equal(debug.code, 1);
  const [first, ...rest] = debug.stderr.split('\n');
  assert.equal(first, plain.stderr.trimEnd());
  assert.match(rest.join('\n'), /^VtsError: .*\n\s+at /);
  assert.match(rest.join('\n'), /^cause: SqliteError: file is not a database\n\s+at /m);
});
