/**
 * A revoked share across a cluster (docs/accounts.md "Sharing"): bob, who was given control of
 * the vehicle, reads and commands it on node B and holds an MP app connection there; the owner
 * revokes the share on node A: at once, B refuses bob's requests (the store is read at each
 * request, nothing cached) and cuts bob's app connection (the revocation is broadcast).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword } from '../../src/auth/password.js';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { skipCluster, startCluster, VEHICLE, type Node } from './harness.js';

const asBob = (node: Node, path: string, init?: RequestInit): Promise<Response> => {
  const u = new URL(node.url(path, false));
  u.searchParams.set('username', 'bob');
  u.searchParams.set('password', 'bobpass1');
  return fetch(u, init);
};

test('a share revoked on node A is refused on node B at once, and B cuts the app connection', { skip: skipCluster }, async (t) => {
  const c = await startCluster(t, ['a', 'b']);
  const [a, b] = c.nodes as [Node, Node];
  await c.store.addOwner('bob', await hashPassword('bobpass1', { N: 1024, r: 8, p: 1 }), '*');
  const shared = await fetch(a.url(`/api/shares/${VEHICLE}`), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: 'bob', access: 'control' }) });
  assert.equal(shared.status, 201, await shared.text());

  assert.equal((await asBob(b, `/api/status/${VEHICLE}`)).status, 200);
  const app = await MpClient.connect({ host: '127.0.0.1', port: b.mp, clientType: 'A', vehicleId: VEHICLE, scheme: 1, username: 'bob', password: 'bobpass1' });
  t.after(() => app.close());

  const revoked = await fetch(a.url(`/api/shares/${VEHICLE}/bob`), { method: 'DELETE' });
  assert.equal(revoked.status, 204);
  // the very next request on B, without waiting for anything
  assert.equal((await asBob(b, `/api/status/${VEHICLE}`)).status, 403);
  const cmd = await asBob(b, `/api/command/${VEHICLE}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ command: 'stat' }) });
  assert.equal(cmd.status, 403);
  await app.closed; // cut by B once it hears the broadcast
  assert.ok(b.logged('share revoked: closing the connection'));
});
