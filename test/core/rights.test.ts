/** Permission strings (src/core/auth/rights.ts, docs/protocol/http-api-v2.md §3.3). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasRight, normaliseRights, parseRights } from '../../src/core/auth/rights.js';

test('`*` exactly grants everything', () => {
  assert.equal(hasRight('*', 'v2'), true);
  assert.equal(hasRight('*', 'token.admin', 'admin'), true);
  assert.equal(hasRight(' * ', 'v2'), true);
});

test('a list that merely contains `*` is not everything', () => {
  assert.equal(hasRight('auth,*', 'v2'), false);
  assert.equal(hasRight('*,v3', 'v2'), false);
  assert.equal(hasRight('*,v2', 'v2'), true);
});

test('`none` grants nothing, case-insensitively', () => {
  assert.equal(hasRight('none', 'none'), false);
  assert.equal(hasRight('NONE', 'v2'), false);
  assert.equal(hasRight(' None ', 'auth'), false);
});

test('comma lists: any of the rights, case-insensitive, blanks around commas ignored', () => {
  assert.equal(hasRight('auth', 'v2'), false);
  assert.equal(hasRight('auth,v2', 'v2'), true);
  assert.equal(hasRight('Auth , V2 ', 'v2'), true);
  assert.equal(hasRight('session', 'V2', 'SESSION'), true);
  assert.equal(hasRight('token.admin', 'token.admin', 'admin'), true);
  assert.equal(hasRight('v3', 'v3', 'mqtt'), true);
  assert.equal(hasRight('mqtt', 'v3', 'mqtt'), true);
  assert.equal(hasRight('v2x', 'v2'), false);
});

test('an empty permit or no requested right grants nothing', () => {
  assert.equal(hasRight('', 'v2'), false);
  assert.equal(hasRight(',,', 'v2'), false);
  assert.equal(hasRight('v2'), false);
});

test('parseRights', () => {
  assert.deepEqual([...parseRights(' A, b ,,c ')], ['a', 'b', 'c']);
  assert.deepEqual([...parseRights('')], []);
});

test('normaliseRights', () => {
  assert.equal(normaliseRights('a, b ,c'), 'a,b,c');
  assert.equal(normaliseRights(' * '), '*');
  assert.equal(normaliseRights('Auth,V2'), 'auth,v2');
  assert.equal(normaliseRights('v2,v2, V2'), 'v2');
  assert.equal(normaliseRights('a,*'), 'a,*');
  assert.equal(normaliseRights(''), '');
  assert.equal(normaliseRights('none'), 'none');
});
