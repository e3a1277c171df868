/**
 * Push notifications (docs/protocol/mp.md §12, §4.2; docs/compatibility.md #19): `P` from the car is
 * forwarded, kept as `*-Log-Notification` history and handed to the notifiers (hub event
 * `notification`); `p` subscriptions are stored when the car password matches (or in the `simple`
 * form); car authentication failure and recovery raise `A` notifications.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Notification } from '../../src/hub/hub.js';
import type { PushSubscription } from '../../src/store/store.js';
import { eventually, harness, m, roundTrip, type Harness } from './helpers.js';

const VID = 'TESTCAR';
const nowSec = (): number => Math.floor(Date.now() / 1000);

function recordNotifications(h: Harness): Notification[] {
  const seen: Notification[] = [];
  h.t.server.hub.events.on('notification', (n) => seen.push(n));
  return seen;
}

test('PA<text> is forwarded, kept as *-Log-Notification history and emitted as a notification', async (ctx) => {
  const h = await harness(ctx);
  const seen = recordNotifications(h);
  const { c: app } = await h.client('A');
  const { c: batch } = await h.client('B');
  const { c: car } = await h.car();
  await roundTrip(app);
  await roundTrip(batch);

  const t0 = nowSec();
  car.send('P', 'AIt is a push alert');
  car.send('P', 'IInfo;with a semicolon');
  car.send('P', 'A'); // a single character: forwarded, but not a notification
  assert.deepEqual(await roundTrip(car), []);
  const t1 = nowSec();
  for (const c of [app, batch]) {
    assert.deepEqual(await roundTrip(c), [m('P', 'AIt is a push alert'), m('P', 'IInfo;with a semicolon'), m('P', 'A')]);
  }

  assert.deepEqual(
    seen.map(({ ownerId, vehicleId, alertType, text }) => ({ ownerId, vehicleId, alertType, text })),
    [
      { ownerId: h.ownerId, vehicleId: VID, alertType: 'A', text: 'It is a push alert' },
      { ownerId: h.ownerId, vehicleId: VID, alertType: 'I', text: 'Info;with a semicolon' },
    ],
  );
  for (const n of seen) assert.ok(n.time >= t0 && n.time <= t1);

  const history = await h.t.server.store.getHistorical(VID, '*-Log-Notification', -1);
  assert.deepEqual(
    history.map((r) => r.data),
    ['A,It is a push alert', 'I,Info;with a semicolon'],
  );
  for (const r of history) {
    assert.ok(r.time >= t0 && r.time <= t1);
    assert.equal(r.expires, r.time + 2592000, 'kept for the default notification history (30 days)');
  }
  assert.notEqual(history[0]!.recordNumber, history[1]!.recordNumber, 'a counter numbers the records');
});

test('with notificationHistory 0 a notification is emitted but not kept', async (ctx) => {
  const h = await harness(ctx, { notificationHistory: 0 });
  const seen = recordNotifications(h);
  const { c: car } = await h.car();
  car.send('P', 'AAlert');
  await roundTrip(car);
  assert.equal(seen.length, 1);
  assert.deepEqual(await h.t.server.store.getHistorical(VID, '*-Log-Notification', -1), []);
});

const subscriptions = async (h: Harness, vehicleId = VID) =>
  (await h.t.server.store.listPushSubscriptions(h.ownerId, vehicleId)).sort((a, b) => a.appId.localeCompare(b.appId));

const sub = (h: Harness, s: Partial<PushSubscription>): Partial<PushSubscription> => ({
  ownerId: h.ownerId,
  vehicleId: VID,
  active: true,
  ...s,
});

/** The subscription fields that the test controls (lastUpdated is checked separately). */
const fields = ({ lastUpdated: _ignored, ...rest }: PushSubscription) => rest;

test('p with the vehicle id and its car password stores a subscription; no reply', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  const t0 = nowSec();
  app.send('p', 'uuid-1,gcm,production,TESTCAR,NETPASS,fcm-token-1');
  app.send('p', 'uuid-2,apns,sandbox,testcar,NETPASS,apns-token'); // apns: key type forced to production
  app.send('p', 'alice,mail,,TESTCAR,NETPASS,alice@example.com');
  assert.deepEqual(await roundTrip(app), [], 'no reply to p');

  const list = await eventually(async () => {
    const l = await subscriptions(h);
    return l.length === 3 ? l : undefined;
  }, 'three subscriptions');
  assert.deepEqual(list.map(fields), [
    sub(h, { appId: 'alice', pushType: 'mail', pushKeyType: '', pushKeyValue: 'alice@example.com' }),
    sub(h, { appId: 'uuid-1', pushType: 'gcm', pushKeyType: 'production', pushKeyValue: 'fcm-token-1' }),
    sub(h, { appId: 'uuid-2', pushType: 'apns', pushKeyType: 'production', pushKeyValue: 'apns-token' }),
  ]);
  for (const s of list) assert.ok(s.lastUpdated >= t0 && s.lastUpdated <= nowSec());

  // the same app id again updates its row
  app.send('p', 'uuid-1,gcm,production,TESTCAR,NETPASS,fcm-token-2');
  const updated = await eventually(async () => {
    const l = await subscriptions(h);
    return l.find((s) => s.appId === 'uuid-1' && s.pushKeyValue === 'fcm-token-2') ? l : undefined;
  }, 'the updated subscription');
  assert.equal(updated.length, 3);
});

test('p for another vehicle of the same owner needs that vehicle\'s password, which may contain commas', async (ctx) => {
  const h = await harness(ctx);
  await h.t.addVehicle('COMMACAR', h.ownerId, 'pass,with,commas');
  const { c: app } = await h.client('A');
  app.send('p', 'uuid-3,gcm,production,COMMACAR,pass,with,commas,token-3');
  const list = await eventually(async () => {
    const l = await subscriptions(h, 'COMMACAR');
    return l.length > 0 ? l : undefined;
  }, 'the COMMACAR subscription');
  assert.deepEqual(list.map(fields), [
    sub(h, { vehicleId: 'COMMACAR', appId: 'uuid-3', pushType: 'gcm', pushKeyType: 'production', pushKeyValue: 'token-3' }),
  ]);
  assert.deepEqual(await subscriptions(h), []);
});

test('p with a wrong password, or for a vehicle of another owner, is not stored', async (ctx) => {
  const h = await harness(ctx);
  const otherOwner = await h.t.addUser('other', 'otherpass');
  await h.t.addVehicle('OTHERCAR', otherOwner, 'OTHERPASS');
  const { c: app } = await h.client('A');
  app.send('p', 'bad-1,gcm,production,TESTCAR,WRONGPASS,token-bad');
  app.send('p', 'bad-2,gcm,production,OTHERCAR,OTHERPASS,token-other');
  app.send('p', 'bad-3,gcm,production,NOSUCHCAR,NETPASS,token-none');
  // a good one sent after them: once it is stored, the others have been decided
  app.send('p', 'good,gcm,production,TESTCAR,NETPASS,token-good');
  assert.deepEqual(await roundTrip(app), []);

  const list = await eventually(async () => {
    const l = await subscriptions(h);
    return l.length > 0 ? l : undefined;
  }, 'the good subscription');
  assert.deepEqual(list.map((s) => s.appId), ['good']);
  assert.deepEqual(await h.t.server.store.listPushSubscriptions(otherOwner, 'OTHERCAR'), []);
  assert.deepEqual(await h.t.server.store.listPushSubscriptions(h.ownerId, 'OTHERCAR'), []);
});

test('p in the simple form registers the key for the connection\'s own vehicle', async (ctx) => {
  const h = await harness(ctx);
  const { c: app } = await h.client('A');
  app.send('p', 'simple-app,gcm,simple,the-key');
  assert.deepEqual(await roundTrip(app), []);
  const list = await eventually(async () => {
    const l = await subscriptions(h);
    return l.length > 0 ? l : undefined;
  }, 'the simple subscription');
  assert.deepEqual(list.map(fields), [
    sub(h, { appId: 'simple-app', pushType: 'gcm', pushKeyType: 'simple', pushKeyValue: 'the-key' }),
  ]);
});

test('a failed car login raises "Vehicle authentication failed", the next good one "…successful"', async (ctx) => {
  const h = await harness(ctx);
  const seen = recordNotifications(h);
  const { c: app } = await h.client('A');

  // a wrong digest: the server closes the connection
  await assert.rejects(h.connect('C', { password: 'WRONG' }), { code: 'MP_LOGIN_CLOSED' });
  await eventually(() => (seen.length >= 1 ? true : undefined), 'the failure notification');
  // a second failure in a row raises nothing new
  await assert.rejects(h.connect('C', { password: 'WRONG' }), { code: 'MP_LOGIN_CLOSED' });
  // a failed app login is not a car authentication failure
  await assert.rejects(h.connect('A', { password: 'WRONG' }), { code: 'MP_LOGIN_CLOSED' });

  const { c: car } = await h.car();
  await eventually(() => (seen.length >= 2 ? true : undefined), 'the success notification');
  await car.close();
  const { c: car2 } = await h.car(); // a further good login raises nothing
  await roundTrip(car2);
  await roundTrip(app);

  assert.deepEqual(
    seen.map(({ ownerId, vehicleId, alertType, text }) => ({ ownerId, vehicleId, alertType, text })),
    [
      { ownerId: h.ownerId, vehicleId: VID, alertType: 'A', text: 'Vehicle authentication failed (127.0.0.1)' },
      { ownerId: h.ownerId, vehicleId: VID, alertType: 'A', text: 'Vehicle authentication successful (127.0.0.1)' },
    ],
  );
  const history = await h.t.server.store.getHistorical(VID, '*-Log-Notification', -1);
  assert.deepEqual(history.map((r) => r.data).sort(), [
    'A,Vehicle authentication failed (127.0.0.1)',
    'A,Vehicle authentication successful (127.0.0.1)',
  ]);
});
