/** The welcome line (src/core/mp/welcome.ts, docs/protocol/mp.md §3, §4.1, §4.3, §5.1, §7). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLIENT_TYPES, parseWelcome, scheme0Reply, scheme1Reply } from '../../src/core/mp/welcome.js';
import { handshakeVector } from '../fixtures/load.js';

const S = handshakeVector().scheme0;

test('the §4.6 car welcome line', () => {
  assert.deepEqual(parseWelcome(S.clientWelcomeLine), {
    kind: 'login',
    clientType: 'C',
    scheme: '0',
    field1: S.clientToken,
    field2: S.clientDigestPadded,
    vehicleId: 'TESTCAR',
  });
});

test('client types C, A, B and S with scheme 0', () => {
  assert.deepEqual(CLIENT_TYPES, ['C', 'A', 'B', 'S']);
  for (const t of CLIENT_TYPES) {
    const w = parseWelcome(`MP-${t} 0 tok dig DEMO1`);
    assert.equal(w.kind, 'login');
    assert.equal(w.kind === 'login' && w.clientType, t);
  }
});

test('scheme 1 (reference transcripts §8a)', () => {
  assert.deepEqual(parseWelcome('MP-A 1 demo demopass DEMO1'), {
    kind: 'login',
    clientType: 'A',
    scheme: '1',
    field1: 'demo',
    field2: 'demopass',
    vehicleId: 'DEMO1',
  });
  const star = parseWelcome('MP-A 1 demo demopass *');
  assert.equal(star.kind === 'login' && star.vehicleId, '*');
});

test('the vehicle id is upper-cased (§3); the other fields are not', () => {
  const w = parseWelcome('MP-A 0 aBc dEf testcar');
  assert.equal(w.kind, 'login');
  if (w.kind !== 'login') return;
  assert.equal(w.vehicleId, 'TESTCAR');
  assert.equal(w.field1, 'aBc');
  assert.equal(w.field2, 'dEf');
});

test('trailing tokens after the vehicle id are tolerated and ignored (§3)', () => {
  for (const line of ['MP-C 0 tok dig DEMO1 extra', 'MP-C 0 tok dig DEMO1 more than one token', 'MP-C 0 tok dig DEMO1\tx']) {
    const w = parseWelcome(line);
    assert.equal(w.kind, 'login', line);
    assert.equal(w.kind === 'login' && w.vehicleId, 'DEMO1', line);
  }
});

test('blanks may be tabs or runs of spaces', () => {
  const w = parseWelcome('MP-B\t0  tok\t \tdig   demo1');
  assert.deepEqual(w, { kind: 'login', clientType: 'B', scheme: '0', field1: 'tok', field2: 'dig', vehicleId: 'DEMO1' });
});

test('auto-provisioning AP-C (§7)', () => {
  assert.deepEqual(parseWelcome('AP-C 0 VIN0123456789ABCD'), { kind: 'autoprovision', scheme: '0', key: 'VIN0123456789ABCD' });
  assert.deepEqual(parseWelcome('AP-C\t0\tkey'), { kind: 'autoprovision', scheme: '0', key: 'key' });
  // The scheme is not checked here (policy belongs to the caller).
  assert.deepEqual(parseWelcome('AP-C 1 key'), { kind: 'autoprovision', scheme: '1', key: 'key' });
});

test('garbage is reported as such (transcripts §8a "Garbage welcome line")', () => {
  for (const line of [
    'hello',
    '',
    ' ',
    'MP-A 0 tok DEMO1', // one field short
    'MP-A0 tok dig DEMO1',
    'MP-AB 0 tok dig DEMO1', // two-character type
    ' MP-A 0 tok dig DEMO1', // leading blank
    'mp-a 0 tok dig DEMO1',
    'AP-C 0',
    'AP-X',
    'GET /apiv2 HTTP/1.1',
  ]) {
    assert.deepEqual(parseWelcome(line), { kind: 'error', reason: 'garbage' }, JSON.stringify(line));
  }
});

test('unknown client types are rejected (§2: "a new implementation should reject unknown types")', () => {
  assert.deepEqual(parseWelcome('MP-X 0 tok dig DEMO1'), { kind: 'error', reason: 'unknown-client-type', clientType: 'X' });
  assert.deepEqual(parseWelcome('MP-c 0 tok dig DEMO1'), { kind: 'error', reason: 'unknown-client-type', clientType: 'c' });
});

test('unsupported schemes (transcripts §8a "MP-A 7 a b DEMO1")', () => {
  assert.deepEqual(parseWelcome('MP-A 7 a b DEMO1'), { kind: 'error', reason: 'unsupported-scheme', scheme: '7' });
  assert.deepEqual(parseWelcome('MP-A 00 a b DEMO1'), { kind: 'error', reason: 'unsupported-scheme', scheme: '00' });
});

test('scheme0Reply: exactly four space-separated fields (§4.3)', () => {
  assert.equal(scheme0Reply(S.serverToken, 'iLI5YsbubZz2pvXTjR9l9A=='), S.serverReplyLine);
});

test('scheme1Reply lists all vehicles including the selected one (§5.1, transcripts §8a)', () => {
  assert.equal(scheme1Reply('demo', 'DEMO1', ['DEMO1', 'TESTCAR']), 'MP-S 1 demo DEMO1 DEMO1 TESTCAR');
  assert.equal(scheme1Reply('demo', 'TESTCAR', ['DEMO1', 'TESTCAR']), 'MP-S 1 demo TESTCAR DEMO1 TESTCAR');
  assert.equal(scheme1Reply('solo', 'CAR', ['CAR']), 'MP-S 1 solo CAR CAR');
});
