/**
 * The push outbox (src/store/push-store.ts) on SQLite, or on PostgreSQL with VTS_TEST_DATABASE:
 * the deliveries a notification gets, channels that are off, alerts that are not pushed, the
 * per-vehicle token bucket, the history, its purge, the users' targets, the subscriptions as the
 * owner sees them, removals, and the migration from the schema before the outbox.
 * Claims and attempts: push-claims.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import pg from 'pg';
import { isVtsError } from '../../src/errors.js';
import { openStore } from '../../src/store/open.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/pg-schema.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/sqlite/migrations.js';
import type { Store } from '../../src/store/store.js';
import { fuzzParams } from '../support/fuzz.js';
import { freshSchema } from '../support/postgres.js';
import { needs, postgres, requireServices } from '../support/services.js';
import { SQLITE_FILE, SQLITE_ONLY, freshPlace, freshStore, seed, tempDir } from './helpers.js';
import { RULES, notify, rules, subscribe } from './push-helpers.js';

const skipPg = await needs(postgres);

test('a notification gets one delivery per active subscription of its owner and vehicle whose push type has a channel, then one per target of the owner', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await seed(store, 'DEMO2');
  const other = await store.addOwner('other', 'h', '*');
  await store.addVehicle({ id: 'OTHER1', ownerId: other.id, name: '', carPassword: 'x' });

  const subs = [
    { appId: 'a', pushType: 'apns', key: 'tok-a', keyType: 'sandbox' },
    { appId: 'b', pushType: 'gcm', key: 'tok-b' },
    { appId: 'c', pushType: 'fcm', key: 'tok-c' },
    { appId: 'd', pushType: 'expo', key: 'ExponentPushToken[d]', keyType: 'simple' },
    { appId: 'e', pushType: 'mail', key: 'me@example.com', keyType: 'simple' },
    { appId: 'f', pushType: 'mail', key: 'not an address' },
    { appId: 'g', pushType: 'apns', key: '{length=32' },
    { appId: 'h', pushType: 'sms', key: '+4912345' },
    { appId: 'i', pushType: 'apns', key: 'tok-i', active: false },
    { appId: 'j', pushType: 'apns', key: 'tok-j', vehicleId: 'DEMO2' },
  ];
  for (const s of subs) await subscribe(store, owner.id, s);
  await store.upsertPushSubscription({
    ownerId: other.id, vehicleId: 'OTHER1', appId: 'x', pushType: 'apns', pushKeyType: 'production', pushKeyValue: 'tok-x', lastUpdated: 1, active: true,
  });
  const hook = await store.push.addTarget(owner.id, 'webhook', 'https://hooks.example/a', 's3cret', 50);
  const ntfy = await store.push.addTarget(owner.id, 'ntfy', 'https://ntfy.example/topic', '', 51);
  await store.push.addTarget(other.id, 'webhook', 'https://hooks.example/other', '', 52);

  const added = await store.push.addNotification({ ownerId: owner.id, vehicleId: 'demo1', alertType: 'A', text: 'Alarm sounding', time: 1000 }, RULES);
  assert.deepEqual(added, { id: added.id, limited: false, pending: 7, channels: ['apns', 'fcm', 'expo', 'mail', 'webhook', 'ntfy'] });

  const [view, ...more] = await store.push.listNotifications(owner.id, undefined, 10);
  assert.deepEqual(more, []);
  assert.deepEqual(
    { ...view!, deliveries: view!.deliveries.map(({ id: _id, ...d }) => d) },
    {
      id: added.id,
      vehicleId: 'DEMO1',
      alertType: 'A',
      text: 'Alarm sounding',
      time: 1000,
      limited: false,
      event: null,
      rule: null,
      heldUntil: null,
      deliveries: [
        { channel: 'apns', appId: 'a', targetId: 0, state: 'pending', attempts: [] },
        { channel: 'fcm', appId: 'b', targetId: 0, state: 'pending', attempts: [] },
        { channel: 'fcm', appId: 'c', targetId: 0, state: 'pending', attempts: [] },
        { channel: 'expo', appId: 'd', targetId: 0, state: 'pending', attempts: [] },
        { channel: 'mail', appId: 'e', targetId: 0, state: 'pending', attempts: [] },
        { channel: 'webhook', appId: '', targetId: hook.id, state: 'pending', attempts: [] },
        { channel: 'ntfy', appId: '', targetId: ntfy.id, state: 'pending', attempts: [] },
      ],
    },
  );
  const ids = view!.deliveries.map((d) => d.id);
  assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'deliveries by id');
  assert.deepEqual(
    [...(await store.push.countOpen())].sort(),
    [['apns', 1], ['expo', 1], ['fcm', 2], ['mail', 1], ['ntfy', 1], ['webhook', 1]],
  );

  // the other owner's vehicle: its own subscription and target only
  assert.equal((await notify(store, other.id, 1000, RULES, 'OTHER1')).pending, 2);
  assert.deepEqual(await store.push.listNotifications(other.id, 'DEMO1', 10), []);

  await assert.rejects(notify(store, owner.id, 1000, RULES, 'NOPE'), (e) => isVtsError(e, 'VTS_ERR_UNKNOWN_VEHICLE'));
  await assert.rejects(notify(store, owner.id, 1000, rules({ burst: 3 }), 'NOPE'), (e) => isVtsError(e, 'VTS_ERR_UNKNOWN_VEHICLE'));
  assert.equal((await store.push.listNotifications(owner.id, undefined, 10)).length, 1);
});

test('a channel that is off: its deliveries are skipped with one attempt saying why; an alert that is not pushed (DMC) is recorded without deliveries or a token', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await subscribe(store, owner.id, { appId: 'a', pushType: 'apns', key: 'tok-a' });
  await subscribe(store, owner.id, { appId: 'b', pushType: 'fcm', key: 'tok-b' });
  const hook = await store.push.addTarget(owner.id, 'webhook', 'https://hooks.example/a', '', 1);

  const r = rules({ off: [['apns', 'apns is off: no --apns-key'], ['webhook', 'webhook is off']], burst: 1, intervalSeconds: 3600 });
  const dmc = await notify(store, owner.id, 100, { ...r, push: false });
  assert.deepEqual(dmc, { id: dmc.id, limited: false, pending: 0, channels: [] });
  const added = await notify(store, owner.id, 200, r);
  assert.deepEqual(added, { id: added.id, limited: false, pending: 1, channels: ['fcm'] }, 'the DMC alert took no token');

  const [n2, n1] = await store.push.listNotifications(owner.id, 'DEMO1', 10);
  assert.deepEqual(n1!.deliveries, []);
  assert.deepEqual(
    n2!.deliveries.map(({ id: _id, ...d }) => d),
    [
      { channel: 'apns', appId: 'a', targetId: 0, state: 'skipped', attempts: [{ time: 200, state: 'skipped', detail: 'apns is off: no --apns-key' }] },
      { channel: 'fcm', appId: 'b', targetId: 0, state: 'pending', attempts: [] },
      { channel: 'webhook', appId: '', targetId: hook.id, state: 'skipped', attempts: [{ time: 200, state: 'skipped', detail: 'webhook is off' }] },
    ],
  );
  assert.deepEqual([...(await store.push.countOpen())], [['fcm', 1]]);
  assert.deepEqual(await store.push.claimDeliveries('apns', 10, 10_000, 'n', 10_060), []);
  // the owner sees why on the subscription and the target too
  assert.deepEqual(
    (await store.push.listSubscriptions(owner.id)).map((s) => [s.appId, s.lastResult, s.lastTime]),
    [['a', 'apns is off: no --apns-key', 200], ['b', '', null]],
  );
  assert.deepEqual((await store.push.listTargets(owner.id)).map((x) => [x.lastResult, x.lastTime]), [['webhook is off', 200]]);
});

test('the token bucket: burst at once, then one per interval; limited notifications are recorded without deliveries; the bucket holds after reopening', async (t) => {
  const place = freshPlace(t);
  let store = await place.open();
  const { owner } = await seed(store);
  await seed(store, 'DEMO2');
  await subscribe(store, owner.id, { appId: 'a', pushType: 'fcm', key: 'tok' });
  const r = rules({ burst: 3, intervalSeconds: 60 });
  const limitedAt = async (time: number, vehicleId = 'DEMO1'): Promise<boolean> => {
    const a = await notify(store, owner.id, time, r, vehicleId);
    assert.equal(a.pending, a.limited ? 0 : vehicleId === 'DEMO1' ? 1 : 0);
    return a.limited;
  };

  assert.deepEqual([await limitedAt(1000), await limitedAt(1000), await limitedAt(1000), await limitedAt(1000)], [false, false, false, true]);
  assert.equal(await limitedAt(1000, 'DEMO2'), false, 'a bucket per vehicle');
  assert.equal(await limitedAt(1059), true);
  assert.equal(await limitedAt(1060), false, 'one token 60 s after the burst');
  assert.equal(await limitedAt(1061), true);

  await store.close();
  store = await place.open();
  assert.equal(await limitedAt(1100), true, 'still empty after reopening');
  assert.deepEqual([await limitedAt(1240), await limitedAt(1240), await limitedAt(1240), await limitedAt(1240)], [false, false, false, true], 'refilled up to the burst, no further');

  const views = await store.push.listNotifications(owner.id, 'DEMO1', 100);
  assert.equal(views.length, 12);
  assert.deepEqual(views.filter((v) => v.limited).map((v) => [v.time, v.deliveries.length]), [[1240, 0], [1100, 0], [1061, 0], [1059, 0], [1000, 0]]);

  // burst 0: no limit; a lower burst caps what is stored
  for (let i = 0; i < 20; i++) assert.equal((await notify(store, owner.id, 2000, rules({ burst: 0 }))).limited, false);
  assert.deepEqual([await limitedAt(5000, 'DEMO2'), await limitedAt(5000, 'DEMO2')], [false, false]);
  const one = rules({ burst: 1, intervalSeconds: 60 });
  assert.deepEqual([(await notify(store, owner.id, 99_000, one, 'DEMO2')).limited, (await notify(store, owner.id, 99_000, one, 'DEMO2')).limited], [false, true]);
});

/** The bucket with exact arithmetic: levels in 1/interval of a token. */
function model(burst: number, interval: number, times: readonly number[]): boolean[] {
  let level = burst * interval;
  let at: number | undefined;
  return times.map((time) => {
    if (at !== undefined) {
      level = Math.min(burst * interval, level + Math.max(0, time - at));
      at = Math.max(at, time);
    } else {
      at = time;
    }
    if (level < interval) return false;
    level -= interval;
    return true;
  });
}

test('property: the bucket allows what exact arithmetic allows, never more than burst + elapsed / interval in any stretch', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  let n = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 1, max: 120 }),
      fc.array(fc.integer({ min: -30, max: 200 }), { minLength: 1, maxLength: 25 }),
      async (burst, interval, gaps) => {
        const vid = `P${++n}`;
        await store.addVehicle({ id: vid, ownerId: owner.id, name: '', carPassword: 'x' });
        const times: number[] = [];
        let time = 1_000_000;
        for (const gap of gaps) times.push((time += gap));
        const allowed: boolean[] = [];
        for (const at of times) allowed.push(!(await notify(store, owner.id, at, rules({ burst, intervalSeconds: interval }), vid)).limited);
        assert.deepEqual(allowed, model(burst, interval, times));
        // any stretch i..j of non-decreasing times allows at most burst + (t_j - t_i) / interval
        for (let i = 0; i < times.length; i++) {
          let count = 0;
          for (let j = i; j < times.length; j++) {
            if (j > i && times[j]! < times[j - 1]!) break;
            if (allowed[j]) count++;
            assert.ok(count <= burst + (times[j]! - times[i]!) / interval, `${count} in ${times[i]}..${times[j]}`);
          }
        }
      },
    ),
    fuzzParams(40),
  );
});

test('listNotifications: newest first, of one vehicle or all of the owner, at most limit', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await seed(store, 'DEMO2');
  await subscribe(store, owner.id, { appId: 'a', pushType: 'fcm', key: 'tok' });
  await notify(store, owner.id, 100, RULES, 'DEMO1', 'one');
  await notify(store, owner.id, 200, RULES, 'DEMO2', 'two');
  await notify(store, owner.id, 300, RULES, 'DEMO1', 'three');
  const texts = async (vehicleId: string | undefined, limit: number): Promise<string[]> =>
    (await store.push.listNotifications(owner.id, vehicleId, limit)).map((v) => v.text);
  assert.deepEqual(await texts(undefined, 10), ['three', 'two', 'one']);
  assert.deepEqual(await texts(undefined, 2), ['three', 'two']);
  assert.deepEqual(await texts('demo1', 10), ['three', 'one']);
  assert.deepEqual(await texts('DEMO2', 10), ['two']);
  assert.deepEqual(await texts(undefined, 0), []);
  assert.deepEqual(await store.push.listNotifications(owner.id + 99, undefined, 10), []);
});

test('purgeNotifications: old notifications without a delivery pending or awaiting its receipt go, with their deliveries and attempts, at most limit at a time', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await subscribe(store, owner.id, { appId: 'a', pushType: 'expo', key: 'tok', keyType: 'simple' });
  const one = rules({ burst: 1, intervalSeconds: 3600 });
  for (const [name, time, r] of [
    ['pending', 100, RULES], ['receipt', 101, RULES], ['delivered', 102, one], ['failed', 103, RULES], ['new', 500, RULES],
    ['skipped', 104, rules({ off: [['expo', 'expo is off']] })], ['limited', 105, one],
  ] as const) {
    const added = await notify(store, owner.id, time, r, 'DEMO1', name);
    assert.equal(added.limited, name === 'limited');
  }

  const claimed = await store.push.claimDeliveries('expo', 10, 200, 'n', 260);
  const byText = new Map(claimed.map((i) => [i.text, i.id]));
  assert.ok(await store.push.finishAttempt(byText.get('receipt')!, 'n', 201, { state: 'receipt', detail: 'ok', receipt: 'r1', nextAt: 900 }));
  assert.ok(await store.push.finishAttempt(byText.get('delivered')!, 'n', 201, { state: 'delivered', detail: 'ok' }));
  assert.ok(await store.push.finishAttempt(byText.get('failed')!, 'n', 201, { state: 'failed', detail: 'HTTP 400' }));
  assert.ok(await store.push.finishAttempt(byText.get('pending')!, 'n', 201, { state: 'pending', detail: 'HTTP 503', nextAt: 900 }));

  assert.equal(await store.push.purgeNotifications(103, 10), 1, 'time < before only');
  assert.equal(await store.push.purgeNotifications(400, 2), 2);
  assert.equal(await store.push.purgeNotifications(400, 0), 0);
  assert.equal(await store.push.purgeNotifications(400, 10), 1);
  assert.equal(await store.push.purgeNotifications(400, 10), 0);
  assert.deepEqual(
    (await store.push.listNotifications(owner.id, undefined, 10)).map((v) => v.text),
    ['new', 'receipt', 'pending'],
  );
  assert.deepEqual([...(await store.push.countOpen())], [['expo', 3]]);
});

test('targets: add, list by id, remove only by their owner; an unknown user is refused; removing the user removes them', async (t) => {
  const { store } = await freshStore(t);
  const alice = await store.addOwner('alice', 'h', '*');
  const bob = await store.addOwner('bob', 'h', '*');
  const a1 = await store.push.addTarget(alice.id, 'webhook', 'https://h.example/1', 'key', 10);
  const a2 = await store.push.addTarget(alice.id, 'ntfy', 'https://ntfy.example/t', '', 11);
  const b1 = await store.push.addTarget(bob.id, 'ntfy', 'https://ntfy.example/b', '', 12);
  assert.deepEqual(a1, {
    id: a1.id, ownerId: alice.id, kind: 'webhook', url: 'https://h.example/1', secret: 'key', created: 10, lastResult: '', lastTime: null,
  });
  assert.deepEqual(await store.push.listTargets(alice.id), [a1, a2]);
  assert.equal(await store.push.removeTarget(bob.id, a1.id), false, 'not his');
  assert.equal(await store.push.removeTarget(alice.id, a1.id), true);
  assert.equal(await store.push.removeTarget(alice.id, a1.id), false);
  assert.deepEqual(await store.push.listTargets(alice.id), [a2]);
  await assert.rejects(store.push.addTarget(9999, 'webhook', 'https://x', '', 1), (e) => isVtsError(e, 'VTS_ERR_UNKNOWN_USER'));

  assert.equal(await store.removeOwner('alice'), true);
  assert.deepEqual(await store.push.listTargets(alice.id), []);
  assert.deepEqual(await store.push.listTargets(bob.id), [b1]);
});

test('subscriptions as the owner sees them: by vehicle then app id, with the last result; a new key forgets it; remove', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await seed(store, 'DEMO0');
  await subscribe(store, owner.id, { appId: 'b', pushType: 'fcm', key: 'tok-b' });
  await subscribe(store, owner.id, { appId: 'a', pushType: 'apns', key: 'tok-a' });
  await subscribe(store, owner.id, { appId: 'z', pushType: 'mail', key: 'me@example.com', vehicleId: 'DEMO0' });
  await store.push.recordResult({ ownerId: owner.id, vehicleId: 'demo1', appId: 'b', address: 'tok-b' }, 77, 'HTTP 200', false);
  await store.push.recordResult({ ownerId: owner.id, vehicleId: 'DEMO1', appId: 'a', address: 'tok-a' }, 78, 'HTTP 200', false);

  assert.deepEqual(
    (await store.push.listSubscriptions(owner.id)).map((s) => [s.vehicleId, s.appId, s.lastResult, s.lastTime]),
    [['DEMO0', 'z', '', null], ['DEMO1', 'a', 'HTTP 200', 78], ['DEMO1', 'b', 'HTTP 200', 77]],
  );
  const [b] = (await store.push.listSubscriptions(owner.id, 'demo1')).filter((s) => s.appId === 'b');
  assert.deepEqual(b, {
    ownerId: owner.id, vehicleId: 'DEMO1', appId: 'b', pushType: 'fcm', pushKeyType: 'production', pushKeyValue: 'tok-b', lastUpdated: 1, active: true,
    lastResult: 'HTTP 200', lastTime: 77,
  });
  // the same key again keeps the result, a new key forgets it
  await subscribe(store, owner.id, { appId: 'b', pushType: 'fcm', key: 'tok-b' }, 5);
  await subscribe(store, owner.id, { appId: 'a', pushType: 'apns', key: 'tok-a2' }, 5);
  assert.deepEqual(
    (await store.push.listSubscriptions(owner.id, 'DEMO1')).map((s) => [s.appId, s.pushKeyValue, s.lastResult, s.lastTime, s.lastUpdated]),
    [['a', 'tok-a2', '', null, 5], ['b', 'tok-b', 'HTTP 200', 77, 5]],
  );
  // the Store's own list is as it was
  assert.deepEqual(Object.keys((await store.listPushSubscriptions(owner.id, 'DEMO1'))[0]!).sort(), [
    'active', 'appId', 'lastUpdated', 'ownerId', 'pushKeyType', 'pushKeyValue', 'pushType', 'vehicleId',
  ]);

  assert.equal(await store.push.removeSubscription(owner.id + 1, 'DEMO1', 'a'), false);
  assert.equal(await store.push.removeSubscription(owner.id, 'demo1', 'a'), true);
  assert.equal(await store.push.removeSubscription(owner.id, 'DEMO1', 'a'), false);
  assert.deepEqual((await store.push.listSubscriptions(owner.id)).map((s) => s.appId), ['z', 'b']);
});

test('removing a vehicle removes its notifications, deliveries and bucket; the user then goes with targets and subscriptions', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await subscribe(store, owner.id, { appId: 'a', pushType: 'fcm', key: 'tok' });
  await store.push.addTarget(owner.id, 'ntfy', 'https://ntfy.example/t', '', 1);
  await notify(store, owner.id, 100, rules({ burst: 1 }));
  await notify(store, owner.id, 100, rules({ burst: 1 }));
  const [item] = await store.push.claimDeliveries('fcm', 1, 100, 'n', 160);
  assert.ok(await store.push.finishAttempt(item!.id, 'n', 101, { state: 'pending', detail: 'HTTP 503', nextAt: 200 }));

  assert.equal(await store.removeVehicle('DEMO1'), true);
  assert.deepEqual(await store.push.listNotifications(owner.id, undefined, 10), []);
  assert.deepEqual([...(await store.push.countOpen())], []);
  assert.deepEqual(await store.push.listSubscriptions(owner.id), []);
  // a vehicle of the same id again starts with a full bucket
  await seed(store);
  assert.equal((await notify(store, owner.id, 100, rules({ burst: 1 }))).limited, false);
  assert.equal(await store.removeVehicle('DEMO1'), true);
  assert.equal(await store.removeOwner('demo'), true);
  assert.deepEqual(await store.push.listTargets(owner.id), []);
});

/** What the migrated database must show: the subscription as it was, no result yet, and a working outbox. */
async function checkMigrated(store: Store, ownerId: number): Promise<void> {
  assert.deepEqual(await store.listPushSubscriptions(ownerId, 'DEMO1'), [
    { ownerId, vehicleId: 'DEMO1', appId: 'app', pushType: 'apns', pushKeyType: 'production', pushKeyValue: 'tok', lastUpdated: 5, active: true },
  ]);
  assert.deepEqual((await store.push.listSubscriptions(ownerId)).map((s) => [s.appId, s.lastResult, s.lastTime]), [['app', '', null]]);
  assert.equal((await notify(store, ownerId, 100, rules({ burst: 2 }))).pending, 1);
  const [item] = await store.push.claimDeliveries('apns', 5, 100, 'n', 130);
  assert.equal(item?.address, 'tok');
  assert.ok(await store.push.finishAttempt(item!.id, 'n', 101, { state: 'delivered', detail: 'HTTP 200' }));
  assert.equal((await store.push.listSubscriptions(ownerId))[0]?.lastResult, 'HTTP 200');
  assert.equal((await store.push.addTarget(ownerId, 'ntfy', 'https://ntfy.example/t', '', 1)).id > 0, true);
}

test('migration: a SQLite file of the schema before the outbox gets it and keeps its data', { skip: SQLITE_ONLY }, async (t) => {
  const dir = tempDir(t);
  const db = new Database(join(dir, SQLITE_FILE));
  const before = MIGRATIONS.findIndex((m) => m.description === 'push outbox');
  for (const m of MIGRATIONS.slice(0, before)) db.exec(m.sql);
  db.pragma(`user_version = ${before}`);
  const ownerId = Number(db.prepare("INSERT INTO owners (name, password_hash, created) VALUES ('demo', 'h', 1)").run().lastInsertRowid);
  db.prepare("INSERT INTO vehicles (id, owner_id, car_password, created) VALUES ('DEMO1', ?, 'pw', 1)").run(ownerId);
  db.prepare(
    "INSERT INTO push_subscriptions (owner_id, vehicle_id, app_id, push_type, push_key_type, push_key_value, last_updated) VALUES (?, 'DEMO1', 'app', 'apns', 'production', 'tok', 5)",
  ).run(ownerId);
  db.close();

  const store = await openStore(dir);
  t.after(() => store.close().catch(() => undefined));
  await checkMigrated(store, ownerId);
  const check = new Database(join(dir, SQLITE_FILE), { readonly: true });
  t.after(() => check.close());
  assert.equal(check.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  assert.deepEqual(check.pragma('foreign_key_check'), []);
});

test('migration: a PostgreSQL schema of the version before the outbox gets it and keeps its data', { skip: skipPg }, async (t) => {
  await requireServices(postgres);
  const s = freshSchema();
  t.after(() => s.drop());
  const client = new pg.Client({ connectionString: s.url });
  await client.connect();
  let ownerId: number;
  try {
    await client.query(`CREATE SCHEMA ${s.schema}`);
    const before = PG_MIGRATIONS.findIndex((m) => m.description === 'push outbox');
    for (const m of PG_MIGRATIONS.slice(0, before)) await client.query(m.sql);
    await client.query('UPDATE vts_schema_version SET version = $1', [before]);
    ownerId = Number((await client.query("INSERT INTO owners (name, password_hash, created) VALUES ('demo', 'h', 1) RETURNING id")).rows[0].id);
    await client.query("INSERT INTO vehicles (id, owner_id, car_password, created) VALUES ('DEMO1', $1, 'pw', 1)", [ownerId]);
    await client.query(
      "INSERT INTO push_subscriptions (owner_id, vehicle_id, app_id, push_type, push_key_type, push_key_value, last_updated) VALUES ($1, 'DEMO1', 'app', 'apns', 'production', 'tok', 5)",
      [ownerId],
    );
  } finally {
    await client.end();
  }
  const store = await openStore('', { database: s.url, create: false });
  t.after(() => store.close().catch(() => undefined));
  await checkMigrated(store, ownerId);
});

test('a closed store: every call of the outbox rejects with VTS_ERR_STORE_CLOSED', async (t) => {
  const { store } = await freshStore(t);
  const { owner } = await seed(store);
  await store.close();
  const closed = (e: unknown): boolean => isVtsError(e, 'VTS_ERR_STORE_CLOSED');
  const p = store.push;
  const calls: (() => Promise<unknown>)[] = [
    () => notify(store, owner.id, 1),
    () => p.claimDeliveries('fcm', 1, 1, 'n', 2),
    () => p.claimDeliveries('fcm', 0, 1, 'n', 2),
    () => p.finishAttempt(1, 'n', 1, { state: 'delivered', detail: '' }),
    () => p.releaseClaims('n'),
    () => p.recordResult({ targetId: 1 }, 1, '', false),
    () => p.listNotifications(owner.id, undefined, 1),
    () => p.purgeNotifications(1, 1),
    () => p.purgeNotifications(1, 0),
    () => p.countOpen(),
    () => p.addTarget(owner.id, 'ntfy', 'https://x', '', 1),
    () => p.listTargets(owner.id),
    () => p.removeTarget(owner.id, 1),
    () => p.listSubscriptions(owner.id),
    () => p.removeSubscription(owner.id, 'DEMO1', 'a'),
  ];
  for (const call of calls) await assert.rejects(call, closed);
});
