/**
 * The mapping of reference rows to vts's (src/import/source-rows.ts): times, the password kinds,
 * vts's rules (each broken one a reported skip), and the ordinary skips.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatUtc } from '../../src/core/time.js';
import { carMessageOf, epochOf, historicalOf, isSkip, ownerOf, passwordOf, tokenOf, vehicleOf, type Mapping } from '../../src/import/source-rows.js';
import { DRUPAL_HASH } from '../support/reference-data.js';

test('reference datetimes (UTC) are epoch seconds; the "never" values are null, whatever the text', () => {
  fc.assert(
    fc.property(fc.integer({ min: Date.UTC(1971, 0, 1) / 1000, max: Date.UTC(2199, 11, 31) / 1000 }), (t) => epochOf(formatUtc(t)) === t),
  );
  for (const never of ['1900-01-01 00:00:00', '0000-00-00 00:00:00', '', null, undefined, 'yesterday']) assert.equal(epochOf(never), null, String(never));
  fc.assert(fc.property(fc.string(), (s) => epochOf(s) === null || Number.isInteger(epochOf(s))));
});

test('passwords: a Drupal 7 hash is kept, another hash cannot be checked, the rest is plain text', () => {
  assert.deepEqual(passwordOf(DRUPAL_HASH), { kind: 'drupal', hash: DRUPAL_HASH });
  assert.deepEqual(passwordOf('secret pass'), { kind: 'plain', password: 'secret pass' });
  assert.equal(passwordOf('').kind, 'none');
  for (const other of ['U$S$9/3dJgXKcWlPSRDvj7pl0gmDF0NWcZyvBWkHPN6.CmjMdbMAoMbFvwR8', '$P$BXYZabcdefghijklmnopqrstuvwxyz01', '$2y$10$abcdefghijklmnopqrstuv']) {
    assert.equal(passwordOf(other).kind, 'none', other);
  }
});

test("rows that break vts's rules are reported skips; deleted, inactive and expired ones are counted skips", () => {
  const owner = { owner: 9, name: 'zoe', mail: 'z@example.com', pass: 'p', status: 1, deleted: 0 };
  assert.ok(!isSkip(ownerOf(owner)));
  assert.deepEqual(ownerOf({ ...owner, status: 0 }), { skip: 'not active (status ≠ 1)', bad: false });
  assert.deepEqual(ownerOf({ ...owner, deleted: 1 }), { skip: 'deleted', bad: false });
  assert.equal((ownerOf({ ...owner, name: 'zoe smith' }) as { bad: boolean }).bad, true);

  const car = { owner: 9, vehicleid: 'zoe1', vehiclename: 'Zoe\u0007', carpass: 'pw', v_type: 'car', v_ptoken: '', deleted: 0, v_lastupdate: '1900-01-01 00:00:00' };
  const v = vehicleOf(car);
  assert.ok(!isSkip(v));
  assert.deepEqual([v.id, v.name, v.type, v.lastUpdate, v.sourceKey], ['ZOE1', 'Zoe ', 'CAR', null, '9/ZOE1']);
  for (const [change, why] of [
    [{ vehicleid: 'X'.repeat(33) }, /longer than 32 characters/],
    [{ vehicleid: 'ZOE/1' }, /is not 1-32 characters/],
    [{ carpass: '' }, /it is empty/],
    [{ carpass: 'a b' }, /without whitespace/],
    [{ carpass: 'x'.repeat(256) }, /without whitespace/],
    [{ v_type: 'BUS' }, /CAR or SERVER/],
  ] as const) {
    const s = vehicleOf({ ...car, ...change });
    assert.ok(isSkip(s) && s.bad && why.test(s.skip), JSON.stringify(change));
  }

  const map: Mapping = { owner: (o) => (String(o) === '9' ? 1 : undefined), vehicle: (o, id) => (String(o) === '9' && String(id).toUpperCase() === 'ZOE1' ? 'ZOE1' : undefined) };
  const now = 1_800_000_000;
  const rec = { owner: 9, vehicleid: 'zoe1', h_timestamp: formatUtc(now - 60), h_recordtype: '*-LOG-Trip', h_recordnumber: 3, h_data: 'd', h_expires: formatUtc(now + 60) };
  assert.deepEqual(historicalOf(rec, map, now), ['ZOE1', '*-LOG-Trip', 3, now - 60, 'd', now + 60]);
  assert.deepEqual(historicalOf({ ...rec, h_expires: formatUtc(now) }, map, now), { skip: 'expired', bad: false });
  assert.equal((historicalOf({ ...rec, owner: 8 }, map, now) as { skip: string }).skip, 'its vehicle was not imported');
  const msg = { owner: 9, vehicleid: 'ZOE1', m_code: 'S', m_valid: 0, m_msgtime: formatUtc(now), m_paranoid: 1, m_ptoken: 'tk', m_msg: 'x' };
  assert.deepEqual(carMessageOf(msg, map), ['ZOE1', 'S', 'x', now, true, 'tk', false]);
  const token = { owner: 9, token: 'AB'.repeat(32), application: 'a', purpose: 'p', permit: 'auth', created: formatUtc(now), lastused: '1900-01-01 00:00:00' };
  assert.deepEqual(tokenOf(token, map, (x) => `h(${x})`), [1, `h(${'ab'.repeat(32)})`, 'a', 'p', 'auth', now, null]);
  assert.equal((tokenOf({ ...token, token: 'short' }, map, (x) => x) as { bad: boolean }).bad, true);
});
