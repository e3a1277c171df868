/**
 * Push delivery when providers fail (issue 15): a temporary failure is retried and delivered once,
 * a permanent one is given up and recorded, an invalid token removes its subscription, a provider
 * that hangs holds up nobody else, and a vehicle's rate limit keeps a flood from the phones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { roundTrip } from '../mp/helpers.js';
import { allSettled, notificationsWhen, pushHarness, startEndpoints, subscribe, VID } from './helpers.js';

test('503 then 200: retried after the back-off, delivered once, both attempts recorded', async (ctx) => {
  const e = await startEndpoints(ctx);
  e.fcm.script('tok', { status: 503, errorStatus: 'UNAVAILABLE', message: 'try later' });
  const h = await pushHarness(ctx, e);
  await subscribe(h, [{ appId: 'android', pushType: 'gcm', keyType: 'production', key: 'tok' }]);
  const { c: car } = await h.car();
  car.send('P', 'ACharging stopped');
  await roundTrip(car);
  const [n] = await notificationsWhen(h, allSettled);
  const d = n!.deliveries[0]!;
  assert.equal(d.state, 'delivered');
  assert.deepEqual(d.attempts.map((a) => a.state), ['pending', 'delivered']);
  assert.match(d.attempts[0]!.detail, /trying again in 1 s/);
  assert.deepEqual(e.fcm.requests.map((r) => r.status), [503, 200]);
});

test('a permanent failure is given up at once and recorded; the subscription stays', async (ctx) => {
  const e = await startEndpoints(ctx);
  e.apns.script('b'.repeat(64), { status: 400, reason: 'BadMessageId' });
  e.smtp.reject('nobody@example.com', 550, 'no such mailbox');
  const h = await pushHarness(ctx, e);
  await subscribe(h, [
    { appId: 'iphone', pushType: 'apns', keyType: 'production', key: 'b'.repeat(64) },
    { appId: 'mail', pushType: 'mail', keyType: '', key: 'nobody@example.com' },
  ]);
  const { c: car } = await h.car();
  car.send('P', 'AAlarm');
  await roundTrip(car);
  const [n] = await notificationsWhen(h, allSettled);
  for (const d of n!.deliveries) {
    assert.equal(d.state, 'failed', d.channel);
    assert.equal(d.attempts.length, 1);
  }
  assert.equal(e.apns.requests.length, 1, 'not retried');
  assert.equal((await h.t.server.store.push.listSubscriptions(h.ownerId, VID)).length, 2);
});

test('a token the provider calls invalid removes its subscription (APNs 410, FCM UNREGISTERED, Expo DeviceNotRegistered)', async (ctx) => {
  const e = await startEndpoints(ctx);
  e.apns.script('c'.repeat(64), { status: 410, reason: 'Unregistered' });
  e.fcm.script('gone', { status: 404, errorStatus: 'NOT_FOUND', errorCode: 'UNREGISTERED', message: 'Requested entity was not found.' });
  e.expo.scriptToken('ExponentPushToken[gone]', { error: 'DeviceNotRegistered' });
  const h = await pushHarness(ctx, e);
  await subscribe(h, [
    { appId: 'iphone', pushType: 'apns', keyType: 'production', key: 'c'.repeat(64) },
    { appId: 'android', pushType: 'gcm', keyType: 'production', key: 'gone' },
    { appId: 'expo', pushType: 'expo', keyType: 'simple', key: 'ExponentPushToken[gone]' },
    { appId: 'kept', pushType: 'gcm', keyType: 'production', key: 'fine' },
  ]);
  const { c: car } = await h.car();
  car.send('P', 'AAlarm');
  await roundTrip(car);
  const [n] = await notificationsWhen(h, allSettled);
  const states = Object.fromEntries(n!.deliveries.map((d) => [d.appId, d.state]));
  assert.deepEqual(states, { iphone: 'removed', android: 'removed', expo: 'removed', kept: 'delivered' });
  const left = await h.t.server.store.push.listSubscriptions(h.ownerId, VID);
  assert.deepEqual(left.map((s) => s.appId), ['kept']);
});

test('a provider that hangs holds up no other provider, and its attempt ends with the timeout', async (ctx) => {
  const e = await startEndpoints(ctx);
  e.apns.answerAll('hang');
  const h = await pushHarness(ctx, e, { timeoutSeconds: 2, giveUpSeconds: 1 });
  await subscribe(h, [
    { appId: 'iphone', pushType: 'apns', keyType: 'production', key: 'd'.repeat(64) },
    { appId: 'android', pushType: 'gcm', keyType: 'production', key: 'tok' },
  ]);
  await h.t.server.store.push.addTarget(h.ownerId, 'webhook', `${e.http.url}/hook`, '', 0);
  const { c: car } = await h.car();
  car.send('P', 'AAlarm');
  await roundTrip(car);
  await e.apns.waitForRequests(1);
  // while APNs still holds its request, the others are delivered
  const during = await notificationsWhen(h, (ns) => ns[0]?.deliveries.filter((d) => d.state === 'delivered').length === 2);
  assert.equal(during[0]!.deliveries.find((d) => d.channel === 'apns')?.state, 'pending');
  const [n] = await notificationsWhen(h, allSettled);
  const apns = n!.deliveries.find((d) => d.channel === 'apns')!;
  assert.equal(apns.state, 'failed');
  assert.match(apns.attempts[0]!.detail, /no answer in time/);
});

test('the rate limit: a burst, then one per interval; the rest is recorded, not sent', async (ctx) => {
  const e = await startEndpoints(ctx);
  const h = await pushHarness(ctx, e, { limit: { burst: 2, perMinute: 1 } });
  await h.t.server.store.push.addTarget(h.ownerId, 'webhook', `${e.http.url}/hook`, '', 0);
  const { c: car } = await h.car();
  for (let k = 1; k <= 5; k++) car.send('P', `AAlert ${k}`);
  await roundTrip(car);
  const ns = await notificationsWhen(h, (list) => list.length === 5 && allSettled(list.filter((n) => !n.limited)));
  assert.deepEqual(
    ns.map((n) => [n.text, n.limited]).reverse(),
    [
      ['Alert 1', false],
      ['Alert 2', false],
      ['Alert 3', true],
      ['Alert 4', true],
      ['Alert 5', true],
    ],
  );
  for (const n of ns) assert.equal(n.deliveries.length, n.limited ? 0 : 1);
  assert.deepEqual(e.http.requestsTo('/hook').map((r) => r.json<{ text: string }>().text).sort(), ['Alert 1', 'Alert 2']);
  // every notification is still history
  assert.equal((await h.t.server.store.getHistorical(VID, '*-Log-Notification', -1)).length, 5);
});
