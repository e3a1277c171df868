/**
 * store.alerts (src/store/alerts-store.ts) on the test's database (SQLite, or PostgreSQL with
 * VTS_TEST_DATABASE): rules in id order, the per-vehicle tag that changes with every change of a
 * vehicle's rules, the versioned saves of the engine state, the owners' quiet hours, and what goes
 * with a removed vehicle.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshStore, seed } from './helpers.js';

test('rules: add, list, update, remove; the counter and the vehicle tag move with each change', async (t) => {
  const { store } = await freshStore(t);
  const { vehicle } = await seed(store);
  await seed(store, 'DEMO2');
  assert.deepEqual(await store.alerts.listRules(vehicle.id), []);
  assert.deepEqual(await store.alerts.ruledVehicles(), []);
  const v0 = await store.alerts.rulesVersion();

  const a = await store.alerts.addRule('demo1', { kind: 'soc-reached', threshold: 80 }, 100);
  const b = await store.alerts.addRule(vehicle.id, { kind: 'offline', after: 60 }, 101);
  assert.deepEqual(a, { id: a.id, kind: 'soc-reached', threshold: 80, created: 100 });
  assert.deepEqual((await store.alerts.listRules(vehicle.id)).map((r) => r.id), [a.id, b.id]);
  const v1 = await store.alerts.rulesVersion();
  assert.ok(v1 > v0);
  const [ruled] = await store.alerts.ruledVehicles();
  assert.deepEqual([ruled!.vehicleId, ruled!.ownerId], [vehicle.id, vehicle.ownerId]);

  const tags: string[] = [ruled!.rulesTag];
  const tag = async () => (await store.alerts.ruledVehicles()).find((r) => r.vehicleId === vehicle.id)?.rulesTag;
  assert.deepEqual(await store.alerts.updateRule(vehicle.id, a.id, { kind: 'soc-below', threshold: 10 }), { id: a.id, kind: 'soc-below', threshold: 10, created: 100 });
  tags.push((await tag())!);
  assert.equal(await store.alerts.updateRule('DEMO2', a.id, { kind: 'charge-done' }), undefined, "not another vehicle's rule");
  assert.equal(await store.alerts.removeRule('DEMO2', a.id), false);
  assert.equal(await tag(), tags[1], 'nothing changed');
  assert.equal(await store.alerts.removeRule(vehicle.id, b.id), true);
  tags.push((await tag())!);
  const c = await store.alerts.addRule(vehicle.id, { kind: 'charge-done' }, 102);
  assert.equal(await store.alerts.removeRule(vehicle.id, a.id), true);
  // removed, then added: the same count, a higher max(rev)
  tags.push((await tag())!);
  assert.equal(new Set(tags).size, 4, `every change shows: ${tags.join(' ')}`);
  assert.deepEqual(await store.alerts.listRules(vehicle.id), [{ id: c.id, kind: 'charge-done', created: 102 }]);
  assert.ok((await store.alerts.rulesVersion()) > v1);
  await assert.rejects(store.alerts.addRule('NOSUCH', { kind: 'charge-done' }, 1), { code: 'VTS_ERR_UNKNOWN_VEHICLE' });
});

test('engine state: saved only over the version it was read at', async (t) => {
  const { store } = await freshStore(t);
  const { vehicle } = await seed(store);
  assert.equal(await store.alerts.loadState(vehicle.id), undefined);
  assert.equal(await store.alerts.saveState(vehicle.id, 0, '{"n":1}'), 1);
  assert.equal(await store.alerts.saveState(vehicle.id, 0, '{"n":"again"}'), null, 'a second first save loses');
  assert.deepEqual(await store.alerts.loadState(vehicle.id), { version: 1, state: '{"n":1}' });
  assert.equal(await store.alerts.saveState(vehicle.id, 1, '{"n":2}'), 2);
  assert.equal(await store.alerts.saveState(vehicle.id, 1, '{"n":"stale"}'), null, 'computed from an old version');
  assert.deepEqual(await store.alerts.loadState(vehicle.id), { version: 2, state: '{"n":2}' });
  assert.equal(await store.alerts.saveState('NOSUCH', 0, '{}'), null, 'no such vehicle');
});

test('quiet hours per owner; a removed vehicle takes its rules and state along', async (t) => {
  const { store } = await freshStore(t);
  const { owner, vehicle } = await seed(store);
  const other = await store.addOwner('other', 'hash', '*');
  assert.equal(await store.alerts.getQuietHours(owner.id), null);
  await store.alerts.setQuietHours(owner.id, { from: '22:00', to: '07:00', timezone: 'Europe/Berlin' });
  assert.deepEqual(await store.alerts.getQuietHours(owner.id), { from: '22:00', to: '07:00', timezone: 'Europe/Berlin' });
  assert.equal(await store.alerts.getQuietHours(other.id), null);
  await store.alerts.setQuietHours(owner.id, null);
  assert.equal(await store.alerts.getQuietHours(owner.id), null);
  await assert.rejects(store.alerts.setQuietHours(999_999, null), { code: 'VTS_ERR_UNKNOWN_USER' });

  await store.alerts.addRule(vehicle.id, { kind: 'charge-done' }, 1);
  await store.alerts.saveState(vehicle.id, 0, '{}');
  await store.removeVehicle(vehicle.id);
  assert.deepEqual(await store.alerts.listRules(vehicle.id), []);
  assert.equal(await store.alerts.loadState(vehicle.id), undefined);
  assert.deepEqual(await store.alerts.ruledVehicles(), []);
});
