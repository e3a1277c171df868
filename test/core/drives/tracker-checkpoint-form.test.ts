/**
 * What a tracker's checkpoint holds (src/core/drives/tracker.ts): the records of its newest second
 * as fingerprints, not copies (a fleet's trackers hold one each in memory), and session
 * signatures as fingerprints; a checkpoint written before (`seenAt` as `code|data`) still stops
 * the records of its last second from being fed twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SessionTracker } from '../../../src/core/drives/tracker.js';
import { isTextHash, textHash } from '../../../src/core/text-hash.js';
import { ScriptedCar } from '../../support/drive-records.js';

const start = 1_700_000_000;
const S = '80,K,0,0,stopped,standard,300,280,16,0,0,0,0,21';
const D = '12,8,4,30,40,25,123,10000';
const L = '51.0000,-0.1000,90,20,1,1,0';

test('the checkpoint holds fingerprints of the last second, not its records', () => {
  const tracker = new SessionTracker();
  for (const [code, data] of [['S', S], ['D', D], ['L', L]] as const) tracker.feed({ code, time: start, data });
  const json = JSON.stringify(tracker.toJSON());
  const state = JSON.parse(json) as { seenAt: string[] };
  assert.deepEqual(state.seenAt, [`S|${textHash(S)}`, `D|${textHash(D)}`, `L|${textHash(L)}`]);
  assert.ok(!json.includes('stopped,standard'), 'no copy of the S record');
});

test('open sessions are remembered by a fingerprint of their signature', () => {
  const car = new ScriptedCar({ start });
  car.park(600).drive(1800, 50);
  const tracker = new SessionTracker();
  for (const r of car.arrivalOrder()) tracker.feed(r);
  const emitted = (tracker.toJSON() as { emitted: Record<string, string> }).emitted;
  assert.ok(Object.keys(emitted).length >= 1, 'the open drive was put');
  for (const sig of Object.values(emitted)) assert.ok(isTextHash(sig), sig);
});

test('a checkpoint of the earlier form: the last second fed again is seen already', () => {
  const tracker = new SessionTracker();
  const records = [['S', S], ['D', D], ['L', L]] as const;
  for (const [code, data] of records) tracker.feed({ code, time: start, data });
  const state = tracker.toJSON() as { seenAt: string[] };
  const older = { ...state, seenAt: records.map(([code, data]) => `${code}|${data}`) };
  const restored = new SessionTracker(JSON.parse(JSON.stringify(older)) as unknown);
  assert.deepEqual((restored.toJSON() as { seenAt: string[] }).seenAt, state.seenAt);
  for (const [code, data] of records) assert.deepEqual(restored.feed({ code, time: start, data }), []);
  assert.equal(JSON.stringify(restored.toJSON()), JSON.stringify(state));
});

test('textHash: its own form, the same for the same text, 15 characters at most', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (s) => {
      const h = textHash(s);
      assert.ok(isTextHash(h) && h.length <= 15, h);
      assert.equal(textHash(s), h);
    }),
  );
  assert.notEqual(textHash(S), textHash(S.replace('80', '81')));
});
