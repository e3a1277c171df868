/**
 * `/mqapi`, the HTTP auth backend for an external Mosquitto (docs/protocol/http-api-v2.md §5, transcripts §6):
 * authentication needs the right v3 or mqtt, superuser checks, topic ACLs under `ovms/<user>/`
 * (config read requests refused), empty bodies and the reference's reason phrases.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { topicAccess } from '../../src/core/mqtt/acl.js';
import { httpHarness, type HttpHarness, type HttpResponse } from './helpers.js';

const form = (h: HttpHarness, path: string, body: string) =>
  h.request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

function assertEmpty(r: HttpResponse, status: number, reason: string): void {
  assert.equal(r.status, status);
  assert.equal(r.reason, reason);
  assert.equal(r.body, '');
  assert.equal(r.headers['content-type'], 'text/plain');
  assert.equal(r.headers['access-control-allow-origin'], '*');
}

test('auth: a valid login with the right v3 or mqtt (or *) is OK, anything else FAILED', async (ctx) => {
  const h = await httpHarness(ctx);
  assertEmpty(await form(h, '/mqapi/auth', 'username=demo&password=demopass&topic=ovms/demo/x&acc=1'), 200, 'Authentication OK');
  assertEmpty(await form(h, '/mqapi/auth', 'username=demo&password=bad'), 403, 'Authentication FAILED');
  assertEmpty(await form(h, '/mqapi/auth', 'username=nobody&password=x'), 403, 'Authentication FAILED');
  await h.t.addUser('reader', 'readerpass', 'auth');
  assertEmpty(await form(h, '/mqapi/auth', 'username=reader&password=readerpass'), 403, 'Authentication FAILED');
  await h.t.addUser('v3user', 'v3pass', 'auth,v3');
  assertEmpty(await form(h, '/mqapi/auth', 'username=v3user&password=v3pass'), 200, 'Authentication OK');
  const get = await h.request('/mqapi/auth?username=demo&password=demopass');
  assert.equal(get.status, 404);
  assert.equal(get.body, 'Unrecognised API call\n');
});

test('superuser: none configured, required username, the configured one', async (ctx) => {
  const plain = await httpHarness(ctx);
  assertEmpty(await form(plain, '/mqapi/superuser', 'username=demo'), 403, 'Not a superuser');
  const missing = await plain.request('/mqapi/superuser', { method: 'POST' });
  assert.equal(missing.status, 404);
  assert.equal(missing.reason, 'Username required');
  assert.equal(missing.body, 'Username required\n');
  const h = await httpHarness(ctx, { mqttSuperuser: 'bridge' });
  assertEmpty(await form(h, '/mqapi/superuser', 'username=bridge'), 200, 'Is a superuser');
  assertEmpty(await form(h, '/mqapi/superuser', 'username=demo'), 403, 'Not a superuser');
  assertEmpty(await form(h, '/mqapi/acl', 'username=bridge&topic=ovms/demo/DEMO1/x&acc=2'), 200, 'Superuser acl is permitted');
});

test('acl: own topics granted, foreign ones and config read requests denied', async (ctx) => {
  const h = await httpHarness(ctx);
  assertEmpty(await form(h, '/mqapi/acl', 'username=demo&topic=ovms/demo/DEMO1/x&acc=2'), 200, 'Access granted');
  assertEmpty(await form(h, '/mqapi/acl', 'username=demo&topic=ovms/other/x&acc=2'), 403, 'Access denied');
  assertEmpty(
    await form(h, '/mqapi/acl', 'username=demo&topic=ovms/demo/DEMO1/client/app1/request/config&acc=2'),
    403,
    'Access denied',
  );
  // the module itself subscribes to its config requests (acc 4 = subscribe, 1 = read): allowed
  for (const acc of ['1', '4']) {
    assertEmpty(await form(h, '/mqapi/acl', `username=demo&topic=ovms/demo/DEMO1/client/%2B/request/config&acc=${acc}`), 200, 'Access granted');
  }
  assertEmpty(await form(h, '/mqapi/acl', 'username=demo&topic=ovms/demo/DEMO1/client/app1/request/config'), 403, 'Access denied');
});

test('topicAccess: prefixes are exact, wildcards in user names never match', () => {
  assert.equal(topicAccess('demo', 'ovms/demo/DEMO1/metric/v/b/soc'), 'granted');
  assert.equal(topicAccess('demo', 'ovms/demo2/DEMO1/metric/v/b/soc'), 'denied');
  assert.equal(topicAccess('demo', 'ovms/demo'), 'denied');
  assert.equal(topicAccess('#', 'ovms/#/x'), 'denied');
  assert.equal(topicAccess('demo', 'ovms/demo/DEMO1/client/x/request/config'), 'denied');
  assert.equal(topicAccess('demo', 'ovms/demo/DEMO1/client/+/request/config', undefined, 'read'), 'granted');
  assert.equal(topicAccess('demo', 'ovms/demo/DEMO1/client/x/request/metric'), 'granted');
  assert.equal(topicAccess('root', 'anything', 'root'), 'superuser');
  assert.equal(topicAccess('', 'ovms//x', ''), 'denied');
});
