/**
 * A data dir that vts may not write: no permission (as an unprivileged user) or a read-only file
 * system; one line `vts: …` that names the path and what to do. Apart from data-dir.test.ts for
 * the time its children take (each runs the CLI as another user or in a mount namespace).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';
import { giveTo, readOnlyWrapper, spawnVts, tempFolder, unprivileged } from './spawn-helpers.js';

const PASSWORD = 'password';

async function withDatabase(dir: string): Promise<void> {
  const store = await openStore(dir);
  await store.close();
}

test('a data dir the user may not write (mode 0500; as nobody when the tests run as root)', async (t) => {
  const who = unprivileged();
  if (typeof who === 'string') return t.skip(who);
  const parent = tempFolder(t, who);
  const full = join(parent, 'full');
  await withDatabase(full);
  giveTo(full, who);
  giveTo(join(full, 'vts.sqlite'), who);
  const empty = join(parent, 'empty');
  mkdirSync(empty);
  giveTo(empty, who);
  chmodSync(full, 0o500); // tempFolder makes them writable again to remove them
  chmodSync(empty, 0o500);
  const denied = (dir: string): string =>
    `vts: no permission to write to ${dir} (EACCES): give the user running vts write access to it, or point --data-dir at another folder (VTS_ERR_DATA_DIR)\n`;
  const cases: [string[], string][] = [
    [['user', 'list', '--data-dir', full], denied(full)],
    [['user', 'add', 'demo', '--password', PASSWORD, '--data-dir', full], denied(full)],
    [['user', 'add', 'demo', '--password', PASSWORD, '--data-dir', empty], denied(empty)],
    [['user', 'add', 'demo', '--password', PASSWORD, '--data-dir', join(empty, 'data')], denied(empty)],
  ];
  for (const [args, stderr] of cases) {
    assert.deepEqual(await spawnVts(args, who), { code: 1, stdout: '', stderr }, args.join(' '));
  }
});

test('a data dir on a read-only file system (a read-only bind mount in a mount namespace)', async (t) => {
  const parent = tempFolder(t);
  const full = join(parent, 'full');
  await withDatabase(full);
  const wrapper = readOnlyWrapper(parent);
  if (typeof wrapper === 'string') return t.skip(wrapper);
  const readOnly = (dir: string): string =>
    `vts: ${dir} is on a read-only file system: point --data-dir at another folder on a writable one (VTS_ERR_DATA_DIR)\n`;
  const cases: [string[], string][] = [
    [['user', 'list', '--data-dir', full], readOnly(full)],
    [['user', 'add', 'demo', '--password', PASSWORD, '--data-dir', full], readOnly(full)],
    [['user', 'add', 'demo', '--password', PASSWORD, '--data-dir', join(parent, 'new')], readOnly(parent)],
  ];
  for (const [args, stderr] of cases) {
    assert.deepEqual(await spawnVts(args, { wrapper }), { code: 1, stdout: '', stderr }, args.join(' '));
  }
});
