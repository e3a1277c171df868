/**
 * The messages between nodes are checked where they arrive: every kind round-trips, and no input
 * (a stray publisher, another version, garbage) makes the parser throw or pass a malformed message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encode, parseMessage, type WireMessage } from '../../src/cluster/wire.js';
import { fuzzParams } from '../support/fuzz.js';

const SAMPLES: WireMessage[] = [
  { t: 'p', n: 'a', v: 'CAR1', p: { car: true, v3: false, apps: 2, batches: 0 } },
  { t: 'reset', n: 'a' },
  { t: 'gone', n: 'b' },
  { t: 'out', v: 'CAR1', m: [['S', '80,K'], ['T', '0']], of: { code: 'S', data: '80,K', time: 5 }, live: { kind: 'record', code: 'S', data: '80,K', time: 5 } },
  { t: 'out', v: 'CAR1', m: [], live: { kind: 'notification', type: 'A', text: 'hi', time: 1 } },
  { t: 'car', v: 'CAR1', c: 'X', d: 'data' },
  { t: 'taken', v: 'CAR1', claim: 17 },
  { t: 'g', n: 'a', grp: 'FLEET', v: 'CAR1', d: null },
  { t: 'b', n: 'a', topic: 'logins', body: { kind: 'failed', address: '1.2.3.4', account: 'user:x', trusted: false } },
  { t: 'sync', id: 'a:1', from: 'a' },
  { t: 'synced', id: 'a:1' },
  { t: 'cmd', id: 'a:2', from: 'a', job: { vehicleId: 'CAR1', kind: 'mp', caller: 'mp:a/3', via: 'mp', command: null, wire: { code: 'E', data: 'MCx' } } },
  { t: 'rec', id: 'a:2', c: 'c', d: '7,0,ok' },
  { t: 'done', id: 'a:2', result: 0, output: 'ok', ms: 3, transport: 'mp' },
  { t: 'fail', id: 'a:2', code: 'VTS_ERR_COMMAND_TIMEOUT', detail: '30000 ms' },
];

test('every kind of message round-trips', () => {
  for (const m of SAMPLES) assert.deepEqual(parseMessage(encode(m)), m);
});

test('malformed messages are refused', () => {
  for (const bad of ['', 'null', '[]', '{"t":"nope"}', '{"t":"p","n":"a","v":"V","p":{"car":1}}', '{"t":"out","v":"V","m":[["S"]]}', '{"t":"cmd","id":"x","from":"a","job":{"vehicleId":"V","kind":"rm -rf","caller":"c","via":"v","command":null}}', '{"t":"__proto__"}', '{"t":"toString"}']) {
    assert.equal(parseMessage(bad), null, bad);
  }
});

test('property: any input parses to null or to a message whose fields have their types', () => {
  const mutate = fc.oneof(fc.string(), fc.json(), fc.constantFrom(...SAMPLES).chain((m) => fc.jsonValue().map((junk) => JSON.stringify({ ...m, ...(typeof junk === 'object' && junk !== null && !Array.isArray(junk) ? junk : { extra: junk }) }))));
  fc.assert(
    fc.property(mutate, (text) => {
      const m = parseMessage(text);
      if (m === null) return;
      assert.equal(typeof m.t, 'string');
      if (m.t === 'out') for (const pair of m.m) assert.ok(typeof pair[0] === 'string' && typeof pair[1] === 'string');
      if (m.t === 'p') assert.equal(typeof m.p.apps, 'number');
    }),
    fuzzParams(2000),
  );
});
