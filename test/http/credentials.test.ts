/**
 * The cache of verified passwords (src/auth/password-checker.ts): polling with username and
 * password does not pay scrypt on every request, yet a password change (e.g. `vts user passwd` in
 * another process) takes effect on the next request, and nothing about the password is logged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword } from '../../src/auth/password.js';
import { openStore } from '../../src/store/open.js';
import { httpHarness } from './helpers.js';

test('a password change in another process takes effect at once, also for a cached password', async (ctx) => {
  const h = await httpHarness(ctx);
  assert.equal((await h.asDemo('/api/vehicles')).status, 200);
  assert.equal(h.t.server.credentials.size, 1, 'the verified password is remembered');
  assert.equal((await h.asDemo('/api/vehicles')).status, 200);

  const cli = await openStore(h.t.dataDir, { database: h.t.database });
  try {
    assert.ok(await cli.setOwnerPassword('demo', await hashPassword('newpass', { N: 1024, r: 8, p: 1 })));
  } finally {
    await cli.close();
  }
  const old = await h.asDemo('/api/vehicles');
  assert.equal(old.status, 401, 'the old password no longer works');
  assert.equal((await h.request('/api/vehicles?username=demo&password=newpass')).status, 200);
  assert.ok(!h.t.logs.some((l) => l.includes('demopass') || l.includes('newpass')), 'no password in any log line');
});

test('a wrong password is never cached: it fails every time', async (ctx) => {
  const h = await httpHarness(ctx);
  for (let k = 0; k < 3; k++) {
    assert.equal((await h.request('/api/vehicles?username=demo&password=wrong')).status, 401);
  }
  assert.equal(h.t.server.credentials.size, 0);
});
