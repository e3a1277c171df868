/**
 * `vts push test <user> [--vehicle ID]`: a test notification through every subscription and
 * target of the user, each outcome printed and noted as the last result (issue 15).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../src/store/open.js';
import { startFcmEndpoint } from '../support/push/fcm-endpoint.js';
import { HttpReceiver } from '../support/push/http-receiver.js';
import { dataDir, vts } from './admin-helpers.js';

test('every subscription and target is tried; outcomes printed and recorded; an invalid token removed', async (t) => {
  const dir = dataDir(t);
  const fcm = await startFcmEndpoint();
  const http = await HttpReceiver.start();
  t.after(() => Promise.all([fcm.close(), http.close()]));
  fcm.script('gone-token', { status: 404, errorStatus: 'NOT_FOUND', errorCode: 'UNREGISTERED', message: 'Requested entity was not found.' });

  assert.equal((await vts(['user', 'add', 'demo', '--password', 'password', '--data-dir', dir])).code, 0);
  assert.equal((await vts(['vehicle', 'add', 'demo1', '--owner', 'demo', '--password', 'netpass', '--name', 'Leaf', '--data-dir', dir])).code, 0);
  assert.equal((await vts(['notify', 'add', 'demo', 'webhook', `${http.url}/hook`, '--data-dir', dir])).code, 0);
  const store = await openStore(dir);
  const owner = (await store.getOwnerByName('demo'))!;
  const sub = { ownerId: owner.id, vehicleId: 'DEMO1', pushKeyType: 'production', lastUpdated: 0, active: true };
  await store.upsertPushSubscription({ ...sub, appId: 'phone', pushType: 'gcm', pushKeyValue: 'good-token' });
  await store.upsertPushSubscription({ ...sub, appId: 'old-phone', pushType: 'gcm', pushKeyValue: 'gone-token' });
  await store.upsertPushSubscription({ ...sub, appId: 'iphone', pushType: 'apns', pushKeyValue: 'x'.repeat(64) });
  await store.close();

  const r = await vts(['push', 'test', 'demo', '--fcm-service-account', fcm.serviceAccountFile, '--fcm-url', fcm.url, '--webhook-allow', '127.0.0.1', '--data-dir', dir]);
  assert.equal(r.code, 1, 'some did not go out');
  const lines = r.stdout.trim().split('\n');
  assert.match(lines[0]!, /^VEHICLE +TO +CHANNEL +OUTCOME$/);
  const row = (to: string): string => lines.find((l) => l.includes(to)) ?? '';
  assert.match(row('gcm phone'), /fcm +delivered/);
  assert.match(row('gcm old-phone'), /subscription removed/);
  assert.match(row('apns iphone'), /skipped: apns is off on this server \(no --apns-key\)/);
  assert.match(row('webhook target 1'), /delivered/);
  assert.match(r.stderr, /2 of 4 test notifications did not go out/);

  assert.equal(fcm.requests.length, 2);
  const data = (fcm.requests.find((q) => q.token === 'good-token')!.payload as { message: { data: Record<string, string> } }).message.data;
  assert.match(data.message ?? '', /Test notification from vts/);
  assert.equal(http.requestsTo('/hook')[0]?.json<{ vehicleName: string }>().vehicleName, 'Leaf');

  const after = await openStore(dir);
  t.after(() => after.close());
  const subs = await after.push.listSubscriptions(owner.id);
  assert.deepEqual(subs.map((s) => s.appId).sort(), ['iphone', 'phone']);
  assert.match(subs.find((s) => s.appId === 'phone')!.lastResult, /delivered/);
  assert.match((await after.push.listTargets(owner.id))[0]!.lastResult, /delivered/);
});

test('a user without subscriptions or targets, an unknown user or vehicle: one line, exit 1', async (t) => {
  const dir = dataDir(t);
  assert.equal((await vts(['user', 'add', 'demo', '--password', 'password', '--data-dir', dir])).code, 0);
  const none = await vts(['push', 'test', 'demo', '--data-dir', dir]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /demo has no push subscriptions and no notification targets/);
  const unknown = await vts(['push', 'test', 'nobody', '--data-dir', dir]);
  assert.match(unknown.stderr, /no such user: nobody/);
  const vehicle = await vts(['push', 'test', 'demo', '--vehicle', 'NOPE', '--data-dir', dir]);
  assert.match(vehicle.stderr, /no such vehicle: NOPE/);
});

test('wrong provider settings are said in one line; the other channels still go out', async (t) => {
  const dir = dataDir(t);
  const http = await HttpReceiver.start();
  t.after(() => http.close());
  assert.equal((await vts(['user', 'add', 'demo', '--password', 'password', '--data-dir', dir])).code, 0);
  assert.equal((await vts(['notify', 'add', 'demo', 'ntfy', `${http.url}/alerts`, '--data-dir', dir])).code, 0);
  const r = await vts(['push', 'test', 'demo', '--fcm-service-account', '/nonexistent/sa.json', '--webhook-allow', '127.0.0.1', '--data-dir', dir]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^vts: fcm is off: .*\/nonexistent\/sa\.json/m);
  assert.match(r.stdout, /ntfy target 1 +ntfy +delivered/);
});
