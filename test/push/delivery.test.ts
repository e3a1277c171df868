/**
 * Push delivery end to end (issue 15): an app subscribes with `p` over MP for each channel, the
 * user has a webhook and an ntfy target, a car raises `P` alerts, and each local endpoint receives
 * exactly the expected request; the outbox records each delivery and its attempts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { roundTrip } from '../mp/helpers.js';
import { allSettled, notificationsWhen, pushHarness, startEndpoints, subscribe, VID } from './helpers.js';

const SUBS = [
  { appId: 'iphone', pushType: 'apns', keyType: 'production', key: 'a'.repeat(64) },
  { appId: 'android', pushType: 'gcm', keyType: 'production', key: 'fcm-token-1' },
  { appId: 'expo-app', pushType: 'expo', keyType: 'simple', key: 'ExponentPushToken[xyz]' },
  { appId: 'owner', pushType: 'mail', keyType: '', key: 'owner@example.com' },
];

test('a P alert reaches every channel once, with the reference payloads', async (ctx) => {
  const e = await startEndpoints(ctx);
  const h = await pushHarness(ctx, e);
  const store = h.t.server.store;
  await store.push.addTarget(h.ownerId, 'webhook', `${e.http.url}/hook`, 'hook-secret', 0);
  await store.push.addTarget(h.ownerId, 'ntfy', `${e.http.url}/my-car`, '', 0);
  await subscribe(h, SUBS);

  const { c: car } = await h.car();
  car.send('P', 'AFront door open');
  await roundTrip(car);

  await Promise.all([e.apns.waitForRequests(1), e.fcm.waitForRequests(1), e.expo.waitForRequests(1), e.smtp.waitForMessages(1), e.http.waitForRequests(2)]);
  const ns = await notificationsWhen(h, allSettled);

  // APNs: the device path, the reference's alert (vehicle id, newline, text)
  assert.equal(e.apns.requests.length, 1);
  const apns = e.apns.requests[0]!;
  assert.equal(apns.problem, undefined);
  assert.equal(apns.token, SUBS[0]!.key);
  assert.equal(apns.headers['apns-topic'], 'com.openvehicles.ovms');
  assert.equal(apns.headers['apns-push-type'], 'alert');
  assert.deepEqual((apns.payload as { aps: unknown }).aps, { alert: `${VID}\nFront door open`, badge: 0, sound: 'default' });

  // FCM: the reference's data fields, all strings
  assert.equal(e.fcm.requests.length, 1);
  const fcm = e.fcm.requests[0]!;
  assert.equal(fcm.problem, undefined);
  assert.equal(fcm.token, 'fcm-token-1');
  const data = (fcm.payload as { message: { data: Record<string, string> } }).message.data;
  assert.equal(data.type, 'A');
  assert.equal(data.title, VID);
  assert.equal(data.message, 'Front door open');
  assert.match(data.time ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

  // Expo: one message, then the receipt checked
  assert.equal(e.expo.messages.length, 1);
  const expo = e.expo.messages[0]!;
  assert.equal(expo.to, 'ExponentPushToken[xyz]');
  assert.equal(expo.title, `Open Vehicles ${VID}`);
  assert.equal(expo.body, 'Front door open');

  // e-mail
  assert.equal(e.smtp.messages.length, 1);
  const mail = e.smtp.messages[0]!;
  assert.deepEqual(mail.envelope.to, ['owner@example.com']);
  assert.equal(mail.subject, `OVMS notification type A from ${VID}`);
  assert.match(mail.text, /^Front door open\n/);

  // webhook (signed) and ntfy
  const [hook] = e.http.requestsTo('/hook');
  assert.ok(hook);
  const body = hook.json<Record<string, unknown>>();
  assert.equal(body.vehicleId, VID);
  assert.equal(body.alertType, 'A');
  assert.equal(body.text, 'Front door open');
  assert.equal(hook.headers['x-vts-signature'], `sha256=${createHmac('sha256', 'hook-secret').update(hook.body).digest('hex')}`);
  const [topic] = e.http.requestsTo('/my-car');
  assert.ok(topic);
  assert.equal(topic.text, 'Front door open');
  assert.equal(topic.headers.title, VID);

  // the outbox: one notification, six deliveries, each delivered after one attempt (Expo: the send, then its receipt)
  assert.equal(ns.length, 1);
  const n = ns[0]!;
  assert.equal(n.text, 'Front door open');
  assert.deepEqual(n.deliveries.map((d) => d.channel).sort(), ['apns', 'expo', 'fcm', 'mail', 'ntfy', 'webhook']);
  for (const d of n.deliveries) {
    assert.equal(d.state, 'delivered', `${d.channel}: ${JSON.stringify(d.attempts)}`);
    assert.equal(d.attempts.length, d.channel === 'expo' ? 2 : 1);
  }
  assert.equal(e.expo.requestsTo('/--/api/v2/push/getReceipts').length, 1);

  // the subscriptions' last results
  const subs = await store.push.listSubscriptions(h.ownerId, VID);
  for (const s of subs) assert.notEqual(s.lastResult, '', s.appId);
});

test('E alerts are pushed as the reference renders them; other vehicles of the owner are not told', async (ctx) => {
  const e = await startEndpoints(ctx);
  const h = await pushHarness(ctx, e);
  await h.t.addVehicle('OTHER', h.ownerId, 'OTHERPASS');
  await subscribe(h, [SUBS[1]!]);
  const { c: car } = await h.car();
  car.send('P', 'ETR,30,1234');
  await roundTrip(car);
  await e.fcm.waitForRequests(1);
  const data = (e.fcm.requests[0]!.payload as { message: { data: Record<string, string> } }).message.data;
  assert.equal(data.type, 'E');
  assert.equal(data.message, 'Vehicle Alert Code: TR/30 (000004d2)');
  const history = await h.t.server.store.getHistorical(VID, '*-Log-Notification', -1);
  assert.deepEqual(history.map((r) => r.data), ['E,Vehicle Alert Code: TR/30 (000004d2)']);
  assert.deepEqual(await h.t.server.store.push.listNotifications(h.ownerId, 'OTHER', 10), []);
});

test('a channel without settings is skipped, with why, and the others deliver', async (ctx) => {
  const e = await startEndpoints(ctx);
  const h = await pushHarness(ctx, e, { apnsKey: undefined, apnsKeyId: undefined, apnsTeamId: undefined, apnsTopic: undefined });
  assert.ok(h.t.logs.some((l) => l.includes('push: apns is off on this server (no --apns-key)')), 'the start says so');
  await subscribe(h, [SUBS[0]!, SUBS[1]!]);
  const { c: car } = await h.car();
  car.send('P', 'IHello');
  await roundTrip(car);
  const [n] = await notificationsWhen(h, allSettled);
  const byChannel = new Map(n!.deliveries.map((d) => [d.channel, d]));
  assert.equal(byChannel.get('apns')?.state, 'skipped');
  assert.match(byChannel.get('apns')?.attempts[0]?.detail ?? '', /apns is off/);
  assert.equal(byChannel.get('fcm')?.state, 'delivered');
  assert.equal(e.apns.requests.length, 0);
});
