/**
 * `GET|POST /api/alerts/<VEHICLEID>`, `PUT|DELETE /api/alerts/<VEHICLEID>/<id>` and `GET|PUT
 * /api/alerts` on a real server (docs/web-api.md "Alerts"): the documented key order and schema,
 * defaults, 400s that name the field (a threshold out of range, an unknown place, another owner's
 * place), 404s, and owners kept apart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpHarness } from '../http/helpers.js';
import { asOther, assertBadField, assertSchema, assertStatusError, body, otherOwner } from '../http/web-api/sessions-helpers.js';
import { json } from './helpers.js';

type Row = Record<string, unknown> & { id: number };

test('rules: create with defaults, list in order, change, remove; key order and schema', async (t) => {
  const h = await httpHarness(t);
  assert.deepEqual(body(await h.asDemo('/api/alerts/TESTCAR')), []);
  const a = await h.asDemo('/api/alerts/TESTCAR', json('POST', { kind: 'soc-reached', threshold: 80 }));
  assert.equal(a.status, 201, a.body);
  const soc = body<Row>(a);
  assert.deepEqual(Object.keys(soc), ['id', 'kind', 'threshold', 'created']);
  assert.equal(soc.threshold, 80);
  assertSchema('AlertRule', soc);

  const stopped = body<Row>(await h.asDemo('/api/alerts/testcar', json('POST', { kind: 'charge-stopped' })));
  assert.deepEqual([stopped.kind, stopped.after], ['charge-stopped', 120], 'the default wait; the id in any case');
  const offline = body<Row>(await h.asDemo('/api/alerts/TESTCAR', json('POST', { kind: 'offline' })));
  assert.equal(offline.after, 3600);
  const v12 = body<Row>(await h.asDemo('/api/alerts/TESTCAR', json('POST', { kind: 'v12-low', threshold: 11.8 })));
  assert.deepEqual(Object.keys(v12), ['id', 'kind', 'threshold', 'after', 'created']);
  assert.deepEqual([v12.threshold, v12.after], [11.8, 600]);
  const report = body<Row>(await h.asDemo('/api/alerts/TESTCAR', json('POST', { kind: 'drive-report', threshold: 5 })));
  assert.deepEqual(Object.keys(report), ['id', 'kind', 'created'], 'settings a kind does not use are ignored');

  const list = body<Row[]>(await h.asDemo('/api/alerts/TESTCAR'));
  assert.deepEqual(list.map((r) => r.kind), ['soc-reached', 'charge-stopped', 'offline', 'v12-low', 'drive-report']);
  for (const r of list) assertSchema('AlertRule', r);

  const changed = await h.asDemo(`/api/alerts/TESTCAR/${soc.id}`, json('PUT', { kind: 'soc-below', threshold: 20 }));
  assert.equal(changed.status, 200, changed.body);
  assert.deepEqual({ ...body<Row>(changed), created: 0 }, { id: soc.id, kind: 'soc-below', threshold: 20, created: 0 });

  assert.equal((await h.asDemo(`/api/alerts/TESTCAR/${soc.id}`, { method: 'DELETE' })).status, 204);
  assertStatusError(await h.asDemo(`/api/alerts/TESTCAR/${soc.id}`, { method: 'DELETE' }), 404, 'VTS_ERR_NOT_FOUND');
  assertStatusError(await h.asDemo(`/api/alerts/TESTCAR/${soc.id}`, json('PUT', { kind: 'charge-done' })), 404, 'VTS_ERR_NOT_FOUND');
  assertStatusError(await h.asDemo('/api/alerts/TESTCAR/x', { method: 'DELETE' }), 404, 'VTS_ERR_NOT_FOUND');
  assert.equal(body<Row[]>(await h.asDemo('/api/alerts/TESTCAR')).length, 4);
  // a rule of one vehicle is not reachable through another
  assertStatusError(await h.asDemo(`/api/alerts/DEMO1/${stopped.id}`, { method: 'DELETE' }), 404, 'VTS_ERR_NOT_FOUND');
});

test('bad settings: a 400 that names the field', async (t) => {
  const h = await httpHarness(t);
  const post = (b: unknown) => h.asDemo('/api/alerts/TESTCAR', json('POST', b));
  assertBadField(await post({}), 'kind');
  assertBadField(await post({ kind: 'soc-somewhere' }), 'kind');
  assertBadField(await post({ kind: 'soc-reached' }), 'threshold');
  assertBadField(await post({ kind: 'soc-reached', threshold: 101 }), 'threshold');
  assertBadField(await post({ kind: 'soc-below', threshold: -1 }), 'threshold');
  assertBadField(await post({ kind: 'soc-below', threshold: '50' }), 'threshold');
  assertBadField(await post({ kind: 'v12-low', threshold: 0 }), 'threshold');
  assertBadField(await post({ kind: 'offline', after: 0 }), 'after');
  assertBadField(await post({ kind: 'charge-stopped', after: 1.5 }), 'after');
  assertBadField(await post({ kind: 'place-arrive' }), 'place');
  assertBadField(await post({ kind: 'place-leave', place: 999 }), 'place');
  assertBadField(await h.asDemo('/api/alerts/TESTCAR', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1]' }), 'body');

  // another owner's place is as unknown as none
  await otherOwner(h);
  const theirs = await asOther(h, '/api/places', json('POST', { name: 'Their home', lat: 52.5, lon: 13.4, radius: 100 }));
  assert.equal(theirs.status, 201, theirs.body);
  assertBadField(await post({ kind: 'place-arrive', place: body<Row>(theirs).id }), 'place');
  const mine = body<Row>(await h.asDemo('/api/places', json('POST', { name: 'Work', lat: 52.52, lon: 13.41, radius: 150 })));
  const ok = await post({ kind: 'place-arrive', place: mine.id });
  assert.equal(ok.status, 201, ok.body);
  assert.deepEqual(Object.keys(body<Row>(ok)), ['id', 'kind', 'place', 'created']);
  assert.deepEqual(body<Row[]>(await h.asDemo('/api/alerts/TESTCAR')).length, 1, 'nothing stored for the refused ones');

  // a change is checked as a new rule is
  const rule = body<Row>(ok).id;
  const put = (b: unknown) => h.asDemo(`/api/alerts/TESTCAR/${rule}`, json('PUT', b));
  assertBadField(await put({ kind: 'soc-reached', threshold: 100.5 }), 'threshold');
  assertBadField(await put({ kind: 'offline', after: -3 }), 'after');
  assertBadField(await put({ kind: 'place-leave', place: body<Row>(theirs).id }), 'place');
  assertBadField(await put({ kind: 'nothing' }), 'kind');
  // a form is not JSON: its values are all text, so the body is what is refused
  const form = await h.asDemo('/api/alerts/TESTCAR', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'kind=soc-reached&threshold=80' });
  assertBadField(form, 'body');
  assert.deepEqual(body<Row[]>(await h.asDemo('/api/alerts/TESTCAR')).map((r) => [r.kind, r.place]), [['place-arrive', mine.id]], 'the refused changes changed nothing');

  // removing a place removes the rules that name it (they could never fire again), and no other
  await post({ kind: 'soc-below', threshold: 20 });
  assert.equal((await h.asDemo(`/api/places/${mine.id}`, { method: 'DELETE' })).status, 204);
  assert.deepEqual(body<Row[]>(await h.asDemo('/api/alerts/TESTCAR')).map((r) => r.kind), ['soc-below']);
});

test('owners are kept apart: another owner neither sees nor changes the rules; the quiet hours are per owner', async (t) => {
  const h = await httpHarness(t);
  await otherOwner(h);
  const rule = body<Row>(await h.asDemo('/api/alerts/TESTCAR', json('POST', { kind: 'charge-done' })));
  assertStatusError(await asOther(h, '/api/alerts/TESTCAR'), 403, 'VTS_ERR_UNKNOWN_VEHICLE');
  assertStatusError(await asOther(h, '/api/alerts/TESTCAR', json('POST', { kind: 'charge-done' })), 403, 'VTS_ERR_UNKNOWN_VEHICLE');
  assertStatusError(await asOther(h, `/api/alerts/TESTCAR/${rule.id}`, json('PUT', { kind: 'charge-started' })), 403, 'VTS_ERR_UNKNOWN_VEHICLE');
  assertStatusError(await asOther(h, `/api/alerts/TESTCAR/${rule.id}`, { method: 'DELETE' }), 403, 'VTS_ERR_UNKNOWN_VEHICLE');
  assertStatusError(await asOther(h, `/api/alerts/OTHER1/${rule.id}`, { method: 'DELETE' }), 404, 'VTS_ERR_NOT_FOUND');
  assert.deepEqual(body<Row[]>(await h.asDemo('/api/alerts/TESTCAR')).map((r) => r.kind), ['charge-done']);

  assert.deepEqual(body(await h.asDemo('/api/alerts')), { quietHours: null });
  const quiet = { from: '22:00', to: '07:00', timezone: 'Europe/Berlin' };
  const set = await h.asDemo('/api/alerts', json('PUT', { quietHours: quiet }));
  assert.equal(set.status, 200, set.body);
  assert.deepEqual(body(set), { quietHours: quiet });
  assertSchema('AlertSettings', body(set));
  assert.deepEqual(body(await h.asDemo('/api/alerts')), { quietHours: quiet });
  assert.deepEqual(body(await asOther(h, '/api/alerts')), { quietHours: null }, "not the other owner's");
  assertBadField(await h.asDemo('/api/alerts', json('PUT', { quietHours: { ...quiet, from: '25:00' } })), 'from');
  assertBadField(await h.asDemo('/api/alerts', json('PUT', { quietHours: { ...quiet, timezone: 'Mars/Olympus' } })), 'timezone');
  assertBadField(await h.asDemo('/api/alerts', json('PUT', {})), 'quietHours');
  assert.deepEqual(body(await h.asDemo('/api/alerts', json('PUT', { quietHours: null }))), { quietHours: null });
  assert.deepEqual(body(await h.asDemo('/api/alerts')), { quietHours: null });
});
