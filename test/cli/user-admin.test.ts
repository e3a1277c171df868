/**
 * The operator's right on the command line (docs/accounts.md "The operator's page"): `vts user add
 * --admin`, `vts user admin <user> on|off`, shown by `vts user list`; each change is an entry of
 * the audit log (store.audit).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
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

test('user add --admin and user admin on|off set the right; user list shows it; the audit log has each', async (t) => {
  const dir = dataDir(t);
  const added = await vts(['user', 'add', 'op', '--password', 'op-password', '--admin', '--data-dir', dir]);
  assert.equal(added.code, 0, added.stderr);
  assert.equal(added.stdout, 'user op added (admin)\n');
  assert.equal((await vts(['user', 'add', 'demo', '--password', 'demo-password', '--data-dir', dir])).code, 0);
  await inStore(dir, async (s) => {
    assert.equal((await s.getOwnerByName('op'))?.admin, true);
    assert.equal((await s.getOwnerByName('demo'))?.admin, false);
  });

  assert.deepEqual(await vts(['user', 'admin', 'DEMO', 'on', '--data-dir', dir]), { code: 0, stdout: 'user demo is an admin now\n', stderr: '' });
  const list = await vts(['user', 'list', '--json', '--data-dir', dir]);
  assert.deepEqual(
    (JSON.parse(list.stdout) as { name: string; admin: boolean }[]).map((u) => [u.name, u.admin]),
    [
      ['demo', true],
      ['op', true],
    ],
  );
  assert.deepEqual(await vts(['user', 'admin', 'op', 'off', '--data-dir', dir]), { code: 0, stdout: 'user op is no admin now\n', stderr: '' });
  const table = await vts(['user', 'list', '--data-dir', dir]);
  assert.match(table.stdout, /^demo +\* +yes +- +0 /m);
  assert.match(table.stdout, /^op +\* +- +- +0 /m);

  const unknown = await vts(['user', 'admin', 'nobody', 'on', '--data-dir', dir]);
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stderr, 'vts: no such user: nobody (VTS_ERR_UNKNOWN_USER)\n');
  const bad = await vts(['user', 'admin', 'op', 'yes', '--data-dir', dir]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /on or off/);

  const entries = await inStore(dir, (s) => s.audit.list({ limit: 10 }));
  assert.deepEqual(
    entries.map((e) => [e.action, e.target, e.via]),
    [
      ['user.admin_off', 'op', 'cli'],
      ['user.admin_on', 'demo', 'cli'],
      ['user.add', 'demo', 'cli'],
      ['user.add', 'op', 'cli'],
    ],
  );
  assert.match(entries[0]!.actor, /^cli:/);
  assert.deepEqual(entries[3]!.detail, { rights: '*', admin: true });
});
