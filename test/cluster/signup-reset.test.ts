/**
 * Sign-up and password reset across a cluster (docs/accounts.md "Sign-up and recovery"): an
 * account signed up on one node is verified on the other; a password reset confirmed on one node
 * ends the account's sessions (web and API) made on both, at once on that node and after the
 * cluster's broadcast on the other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../mp/helpers.js';
import { SmtpSink } from '../support/push/smtp-sink.js';
import { tokenOf } from '../support/signup.js';
import { skipCluster, startCluster, type Node } from './harness.js';

const post = (node: Node, path: string, body: unknown): Promise<Response> =>
  fetch(node.url(path, false), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const statusWith = async (node: Node, path: string, cookie: string): Promise<number> => (await fetch(node.url(path, false), { headers: { cookie } })).status;

test('signed up on one node, verified on the other; a reset on one ends the sessions made on both', { skip: skipCluster }, async (t) => {
  const sink = await SmtpSink.start();
  t.after(() => sink.close());
  const c = await startCluster(t, ['a', 'b'], { extra: ['--registration', 'open', '--smtp-url', sink.url, '--public-url', 'https://vts.example.org'] });
  const [a, b] = c.nodes as [Node, Node];

  assert.equal((await post(a, '/api/account', { username: 'alice', email: 'alice@example.org', password: 'old password' })).status, 202);
  const verify = tokenOf((await sink.waitForMessages(1, 15_000))[0]!, 'verify');
  assert.equal((await post(b, '/api/account/verify', { token: verify })).status, 200);

  const web = await post(a, '/api/session', { username: 'alice', password: 'old password' });
  assert.equal(web.status, 200);
  const webCookie = (web.headers.get('set-cookie') ?? '').split(';')[0]!;
  const api = await fetch(b.url('/api/cookie?username=alice&password=old%20password', false));
  assert.equal(api.status, 200);
  const apiCookie = (api.headers.get('set-cookie') ?? '').split(';')[0]!;
  for (const node of [a, b]) {
    assert.equal(await statusWith(node, '/api/session', webCookie), 200);
    assert.equal(await statusWith(node, '/api/vehicles', apiCookie), 200);
  }

  assert.equal((await post(b, '/api/account/reset', { email: 'alice@example.org' })).status, 202);
  const reset = tokenOf((await sink.waitForMessages(2, 15_000))[1]!, 'reset');
  assert.equal((await post(a, '/api/account/reset/confirm', { token: reset, password: 'new password' })).status, 200);

  assert.equal(await statusWith(a, '/api/session', webCookie), 401, 'ended at once where the reset was confirmed');
  for (const node of [a, b]) {
    await eventually(async () => ((await statusWith(node, '/api/session', webCookie)) === 401 ? true : undefined), `the web session ending on ${node.id}`);
    await eventually(async () => ((await statusWith(node, '/api/vehicles', apiCookie)) === 401 ? true : undefined), `the API session ending on ${node.id}`);
  }
  assert.equal((await post(b, '/api/session', { username: 'alice', password: 'new password' })).status, 200);
});
