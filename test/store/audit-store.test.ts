/**
 * store.audit (src/store/audit-store.ts) on the test's database (SQLite, or PostgreSQL with
 * VTS_TEST_DATABASE): entries newest first, pages by id, filters by action (or its family),
 * actor and target, the latest sign-in of users, and the purge of old entries.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshStore } from './helpers.js';

test('entries: newest first, paged by id, filtered; latest sign-ins; purge by age', async (t) => {
  const { store } = await freshStore(t);
  const add = (time: number, action: string, actor: string, target: string) => store.audit.add({ time, action, actor, via: 'web', target, detail: { client: '127.0.0.1' } });
  const ids: number[] = [];
  ids.push(await add(100, 'session.signin', 'demo', 'demo'));
  ids.push(await add(110, 'user.disable', 'op', 'demo'));
  ids.push(await add(120, 'user.enable', 'op', 'demo'));
  ids.push(await add(130, 'session.signin', 'Demo', 'demo'));
  ids.push(await add(140, 'session.signin', 'op', 'op'));
  ids.push(await add(150, 'users.x', 'op', 'alice'));
  assert.ok(ids.every((id, k) => k === 0 || id > ids[k - 1]!));

  const all = await store.audit.list({ limit: 10 });
  assert.deepEqual(all.map((e) => e.id), [...ids].reverse());
  assert.deepEqual(all[5], { id: ids[0], time: 100, action: 'session.signin', actor: 'demo', via: 'web', target: 'demo', detail: { client: '127.0.0.1' } });
  const page1 = await store.audit.list({ limit: 2 });
  const page2 = await store.audit.list({ limit: 2, before: page1[1]!.id });
  assert.deepEqual([...page1, ...page2].map((e) => e.time), [150, 140, 130, 120]);

  assert.deepEqual((await store.audit.list({ limit: 10, action: 'user' })).map((e) => e.action), ['user.enable', 'user.disable'], 'a family, not users.x');
  assert.deepEqual((await store.audit.list({ limit: 10, action: 'user.enable' })).map((e) => e.time), [120]);
  assert.deepEqual((await store.audit.list({ limit: 10, actor: 'DEMO' })).map((e) => e.time), [130, 100]);
  assert.deepEqual((await store.audit.list({ limit: 10, target: 'demo', actor: 'op' })).map((e) => e.time), [120, 110]);

  const last = await store.audit.lastSignIns(['op', 'demo', 'Demo', 'nobody']);
  assert.deepEqual(Object.fromEntries(last), { op: 140, demo: 100, Demo: 130 });
  assert.deepEqual(await store.audit.lastSignIns([]), new Map());

  assert.equal(await store.audit.purge(125, 2), 2);
  assert.equal(await store.audit.purge(125, 10), 1);
  assert.deepEqual((await store.audit.list({ limit: 10 })).map((e) => e.time), [150, 140, 130]);
});

test('owner flags: admin, disabled and verified are set as given and read back', async (t) => {
  const { store } = await freshStore(t);
  await store.addOwner('demo', 'hash', '*');
  const flags = async () => {
    const o = (await store.getOwnerByName('DEMO'))!;
    return { admin: o.admin, disabled: o.disabled, verified: o.verified };
  };
  assert.deepEqual(await flags(), { admin: false, disabled: false, verified: true });
  assert.equal(await store.setOwnerFlags('Demo', { admin: true, disabled: true }), true);
  assert.deepEqual(await flags(), { admin: true, disabled: true, verified: true });
  assert.equal(await store.setOwnerFlags('demo', { verified: false, disabled: false }), true);
  assert.deepEqual(await flags(), { admin: true, disabled: false, verified: false });
  assert.equal(await store.setOwnerFlags('demo', {}), true);
  assert.equal(await store.setOwnerFlags('nobody', { admin: true }), false);
  assert.equal(await store.setOwnerFlags('nobody', {}), false);
  assert.equal((await store.getOwnerById((await store.getOwnerByName('demo'))!.id))?.admin, true);
});
