/**
 * `vts invite create|list|remove` (docs/accounts.md "Sign-up and recovery"): the code is printed
 * once and stored as its hash, with its uses and expiry; the list names codes by the start of the
 * hash; remove takes that id or the code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { secretHash } from '../../src/auth/signup.js';
import { openStore } from '../../src/store/open.js';
import { dataDir, vts } from './admin-helpers.js';

test('invite create prints a code once, stored hashed with its uses and expiry; list and remove', async (t) => {
  const dir = dataDir(t);
  const a = await vts(['invite', 'create', '--data-dir', dir]);
  assert.equal(a.code, 0, a.stderr);
  const code = a.stdout.trim();
  assert.match(code, /^[A-Za-z0-9_-]{20}$/);
  assert.match(a.stderr, /invitation [0-9a-f]{12}: 1 use; the code is shown only now\n$/);
  const b = await vts(['invite', 'create', '--uses', '5', '--expires', '7d', '--data-dir', dir]);
  assert.equal(b.code, 0, b.stderr);
  const second = b.stdout.trim();

  const store = await openStore(dir);
  try {
    const invites = await store.signup.listInvites();
    assert.deepEqual(invites.map((i) => i.codeHash).sort(), [secretHash(code), secretHash(second)].sort(), 'only the hashes');
    const five = invites.find((i) => i.codeHash === secretHash(second))!;
    assert.equal(five.usesLeft, 5);
    assert.equal(five.expires! - five.created, 7 * 86_400);
    assert.equal(invites.find((i) => i.codeHash === secretHash(code))!.expires, null);
  } finally {
    await store.close();
  }

  const list = await vts(['invite', 'list', '--json', '--data-dir', dir]);
  const rows = JSON.parse(list.stdout) as { id: string; usesLeft: number; expires: string | null }[];
  assert.equal(rows.length, 2);
  assert.ok(!list.stdout.includes(code) && !list.stdout.includes(second), 'the codes are never shown again');
  const table = await vts(['invite', 'list', '--data-dir', dir]);
  assert.match(table.stdout, /^ID +USES LEFT +EXPIRES \(UTC\) +CREATED \(UTC\)\n/);
  assert.match(table.stdout, /never/);

  const byId = await vts(['invite', 'remove', secretHash(second).slice(0, 12), '--data-dir', dir]);
  assert.deepEqual([byId.code, byId.stdout], [0, `invitation ${secretHash(second).slice(0, 12)} removed\n`]);
  const byCode = await vts(['invite', 'remove', code, '--data-dir', dir]);
  assert.equal(byCode.code, 0, byCode.stderr);
  const gone = await vts(['invite', 'remove', code, '--data-dir', dir]);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /no invitation/);
  assert.equal((await vts(['invite', 'list', '--json', '--data-dir', dir])).stdout, '[]\n');
});

test('invite create: bad --uses or --expires is a one-line error', async (t) => {
  const dir = dataDir(t);
  for (const args of [['--uses', '0'], ['--uses', 'many'], ['--expires', '7'], ['--expires', '0d'], ['--expires', '11000d']]) {
    const r = await vts(['invite', 'create', ...args, '--data-dir', dir]);
    assert.equal(r.code, 1, args.join(' '));
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length <= 2, true, r.stderr);
  }
});
