/**
 * Logs of the HTTP adapter (issue 17): an audit line for every change to accounts and their
 * secrets (API tokens, passwords, notification targets), with who and what but never the secret;
 * an access-log line per request at debug level, without the query (passwords) or a token in the
 * path.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEMO_AUTH, httpHarness, withQuery } from './helpers.js';

type Line = Record<string, unknown>;
const parsed = (logs: string[]): Line[] => logs.map((l) => JSON.parse(l) as Line);
const audits = (logs: string[]): Line[] => parsed(logs).filter((l) => typeof l.audit === 'string');

const form = (body: string) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

test('token, password and notification-target changes each leave an audit line without the secret', async (t) => {
  const h = await httpHarness(t);
  const created = await h.asDemo('/api/token', form('application=audit-test&purpose=test&permit=auth'));
  assert.equal(created.status, 201, created.body);
  const token = (JSON.parse(created.body) as { token: string }).token;
  assert.equal((await h.asDemo(`/api/token/${token}`, { method: 'DELETE' })).status, 200);
  const target = await h.asDemo('/api/push/targets', form('kind=webhook&url=https%3A%2F%2Fhooks.example%2Fvts&secret=hook-secret-123456'));
  assert.equal(target.status, 201, target.body);
  const id = (JSON.parse(target.body) as { id: number }).id;
  assert.equal((await h.asDemo(`/api/push/targets/${id}`, { method: 'DELETE' })).status, 204);
  const changed = await h.asDemo('/api/password', form('current=demopass&new=a-new-password-42'));
  assert.equal(changed.status, 204, changed.body);

  const lines = audits(h.t.logs);
  assert.deepEqual(
    lines.map((l) => [l.audit, l.by, l.via, l.user, l.msg]),
    [
      ['token.create', 'demo', 'http', 'demo', 'audit: token.create'],
      ['token.revoke', 'demo', 'http', 'demo', 'audit: token.revoke'],
      ['notify.add', 'demo', 'http', 'demo', 'audit: notify.add'],
      ['notify.remove', 'demo', 'http', 'demo', 'audit: notify.remove'],
      ['password.change', 'demo', 'http', 'demo', 'audit: password.change'],
    ],
  );
  assert.equal(lines[0]!.application, 'audit-test');
  assert.equal(lines[2]!.kind, 'webhook');
  assert.equal(lines[2]!.signed, true);
  for (const l of lines) {
    assert.equal(l.level, 30);
    assert.equal(l.client, '127.0.0.1');
  }
  const all = h.t.logs.join('\n');
  for (const secret of [token, 'hook-secret-123456', 'demopass', 'a-new-password-42']) assert.ok(!all.includes(secret), `a log line holds ${secret}`);
});

test('an access-log line per request at debug, without the query or a token in the path', async (t) => {
  const h = await httpHarness(t);
  assert.equal((await h.asDemo('/api/vehicles')).status, 200);
  assert.equal((await h.request(withQuery('/api/token/0123456789abcdef0123456789abcdef', DEMO_AUTH), { method: 'DELETE' })).status, 200);
  // the same token percent-encoded, with a wrong password: masked in the access log and the failed login's line
  assert.equal((await h.request('/api/%74oken/0123456789abcdef0123456789abcdef?username=demo&password=wrong', { method: 'DELETE' })).status, 401);
  assert.equal((await h.request('/no/such/page')).status, 404);
  const access = parsed(h.t.logs).filter((l) => l.msg === 'HTTP request');
  assert.deepEqual(
    access.map((l) => [l.level, l.method, l.path, l.status, l.group, l.client]),
    [
      [20, 'GET', '/api/vehicles', 200, 'api_v2', '127.0.0.1'],
      [20, 'DELETE', '/api/token/…', 200, 'api_v2', '127.0.0.1'],
      [20, 'DELETE', '/api/token/…', 401, 'api_v2', '127.0.0.1'],
      [20, 'GET', '/no/such/page', 404, 'web', '127.0.0.1'],
    ],
  );
  for (const l of access) assert.equal(typeof l.ms, 'number');
  const all = h.t.logs.join('\n');
  assert.ok(!all.includes('demopass') && !all.includes('0123456789abcdef0123456789abcdef'));
});
