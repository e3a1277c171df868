/** Push subscriptions `p` (src/core/mp/push-subscription.ts, docs/protocol/mp.md §12.2). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePushSubscription } from '../../src/core/mp/push-subscription.js';

test('the Android app form', () => {
  assert.deepEqual(parsePushSubscription('3f2504e0-4f89,gcm,production,DEMO1,NETPASS,fcm-token:abc'), {
    appId: '3f2504e0-4f89',
    pushType: 'gcm',
    pushKeyType: 'production',
    vehicleId: 'DEMO1',
    netPass: 'NETPASS',
    pushKeyValue: 'fcm-token:abc',
  });
});

test('the password in the middle may contain commas', () => {
  const p = parsePushSubscription('app,gcm,production,DEMO1,pass,word,,x,TOKEN');
  assert.equal(p?.vehicleId, 'DEMO1');
  assert.equal(p?.netPass, 'pass,word,,x');
  assert.equal(p?.pushKeyValue, 'TOKEN');
});

test('subscribe.pl form: empty push key type, e-mail key', () => {
  assert.deepEqual(parsePushSubscription('demo,mail,,DEMO1,NETPASS,owner@example.com'), {
    appId: 'demo',
    pushType: 'mail',
    pushKeyType: '',
    vehicleId: 'DEMO1',
    netPass: 'NETPASS',
    pushKeyValue: 'owner@example.com',
  });
});

test('the vehicle id is upper-cased for a case-sensitive store (§3, §12.2 note)', () => {
  assert.equal(parsePushSubscription('app,gcm,production,demo1,NETPASS,tok')?.vehicleId, 'DEMO1');
});

test('apns forces the push key type to production', () => {
  assert.equal(parsePushSubscription('app,apns,sandbox,DEMO1,NETPASS,devtoken')?.pushKeyType, 'production');
  assert.equal(parsePushSubscription('app,apns,,DEMO1,NETPASS,devtoken')?.pushKeyType, 'production');
  assert.equal(parsePushSubscription('app,gcm,sandbox,DEMO1,NETPASS,devtoken')?.pushKeyType, 'sandbox');
});

test('the `simple` short form registers a key for the connection’s own vehicle', () => {
  assert.deepEqual(parsePushSubscription('app,gcm,simple,TOKEN'), {
    appId: 'app',
    pushType: 'gcm',
    pushKeyType: 'simple',
    pushKeyValue: 'TOKEN',
  });
  // simple with something that looks like the full form is the full form.
  assert.equal(parsePushSubscription('app,gcm,simple,DEMO1,pw,TOKEN')?.vehicleId, 'DEMO1');
});

test('malformed subscriptions are null', () => {
  for (const d of [
    '',
    'app',
    'app,gcm',
    'app,gcm,production',
    'app,gcm,production,TOKEN', // neither full nor simple
    'app,gcm,production,DEMO1,TOKEN', // no password field
    ',gcm,production,DEMO1,pw,tok', // empty app id
    'app,,production,DEMO1,pw,tok', // empty push type
  ]) {
    assert.equal(parsePushSubscription(d), null, JSON.stringify(d));
  }
});

test(
  'an empty password or an empty push key does not match the full form (REF regex)',
  () => {
    assert.equal(parsePushSubscription('app,gcm,production,DEMO1,NETPASS,'), null);
    assert.equal(parsePushSubscription('app,gcm,production,DEMO1,,tok'), null);
  },
);
