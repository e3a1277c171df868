/**
 * `/mqapi/acl` and sharing (docs/accounts.md "Sharing"): an external Mosquitto's ACL grants a user
 * the topics of a vehicle shared with it under its owner's prefix (read; view: not the `client/`
 * topics on delivery; control: the command topics too), nothing of the owner's other vehicles, and
 * nothing once the share is revoked (the store is read at each call).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpHarness, type HttpHarness } from './helpers.js';

const acl = async (h: HttpHarness, user: string, topic: string, acc: string): Promise<number> =>
  (
    await h.request('/mqapi/acl', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=${user}&topic=${encodeURIComponent(topic)}&acc=${acc}`,
    })
  ).status;

test('mqapi acl: shared topics for view and control, none of other vehicles, none after revoking', async (ctx) => {
  const h = await httpHarness(ctx);
  const bob = await h.t.addUser('bob', 'bobpass1');
  const carol = await h.t.addUser('carol', 'carolpass');
  await h.t.server.store.shares.putShare('DEMO1', bob, 'view', 1);
  await h.t.server.store.shares.putShare('DEMO1', carol, 'control', 1);

  assert.equal(await acl(h, 'bob', 'ovms/demo/DEMO1/#', '4'), 200, 'subscribe');
  assert.equal(await acl(h, 'bob', 'ovms/demo/DEMO1/metric/v/b/soc', '1'), 200, 'deliver a metric');
  assert.equal(await acl(h, 'bob', 'ovms/demo/DEMO1/client/app/command/1', '1'), 403, "view: not the apps' commands");
  assert.equal(await acl(h, 'bob', 'ovms/demo/DEMO1/client/bob1/command/1', '2'), 403, 'view: no publish');
  assert.equal(await acl(h, 'bob', 'ovms/demo/TESTCAR/#', '4'), 403, 'not the owner’s other vehicle');
  assert.equal(await acl(h, 'bob', 'ovms/demo/+/metric/#', '4'), 403);
  assert.equal(await acl(h, 'bob', 'ovms/other/DEMO1/#', '4'), 403, 'under its owner’s prefix only');

  assert.equal(await acl(h, 'carol', 'ovms/demo/DEMO1/client/carol1/command/7', '2'), 200, 'control: commands');
  assert.equal(await acl(h, 'carol', 'ovms/demo/DEMO1/client/carol1/request/config', '2'), 403, 'never a config read request');
  assert.equal(await acl(h, 'carol', 'ovms/demo/DEMO1/metric/v/b/soc', '2'), 403, 'control: no metric publish');

  await h.t.server.store.shares.removeShare('DEMO1', bob);
  assert.equal(await acl(h, 'bob', 'ovms/demo/DEMO1/metric/v/b/soc', '1'), 403);
});
