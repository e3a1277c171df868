/** Historical records (src/core/mp/historical.ts, docs/protocol/mp.md §15, docs/protocol/messages.md §3.11). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { historicalTimes, parseAckedH, parseH } from '../../src/core/mp/historical.js';
import { isUtilisationType } from '../../src/core/records/lists.js';

test('parseH: the transcript record (data keeps its commas)', () => {
  assert.deepEqual(parseH('*-LOG-Test,0,86400,hello,world'), {
    type: '*-LOG-Test',
    recordNumber: 0,
    lifetime: 86400,
    data: 'hello,world',
    timeDiff: 0,
  });
});

test('parseH: empty data and FW2 records', () => {
  assert.deepEqual(parseH('*-OVM-DebugCrash,0,2592000,'), {
    type: '*-OVM-DebugCrash',
    recordNumber: 0,
    lifetime: 2592000,
    data: '',
    timeDiff: 0,
  });
  assert.equal(parseH('*-OVM-DebugCrash,0,2592000,3.3.003,5,reason,cp')?.data, '3.3.003,5,reason,cp');
});

test('parseH: malformed records are null', () => {
  for (const d of ['', '*-LOG-Test', '*-LOG-Test,0,86400', ',0,86400,x', '*-LOG-Test,x,86400,d', '*-LOG-Test,0,,d', '*-LOG-Test,0,1.5,d']) {
    assert.equal(parseH(d), null, JSON.stringify(d));
  }
});

test('parseAckedH: the transcript record h7,0,*-LOG-Test,1,86400,delayed,record', () => {
  assert.deepEqual(parseAckedH('7,0,*-LOG-Test,1,86400,delayed,record'), {
    ackCode: '7',
    record: { type: '*-LOG-Test', recordNumber: 1, lifetime: 86400, data: 'delayed,record', timeDiff: 0 },
  });
});

test('parseAckedH: negative time difference', () => {
  const r = parseAckedH('12,-3600,*-LOG-Trip,1,2592000,a,b,c');
  assert.equal(r.ackCode, '12');
  assert.deepEqual(r.record, { type: '*-LOG-Trip', recordNumber: 1, lifetime: 2592000, data: 'a,b,c', timeDiff: -3600 });
});

test('parseAckedH: the ack code is returned even for malformed records (§15 "always")', () => {
  assert.deepEqual(parseAckedH('7'), { ackCode: '7', record: null });
  assert.deepEqual(parseAckedH('7,0,*-LOG-Test,1,86400'), { ackCode: '7', record: null });
  assert.deepEqual(parseAckedH('7,x,*-LOG-Test,1,86400,d'), { ackCode: '7', record: null });
  assert.deepEqual(parseAckedH('7,0,,1,86400,d'), { ackCode: '7', record: null });
  assert.deepEqual(parseAckedH(''), { ackCode: '', record: null });
  // Paranoid h (§10): the whole base64 blob is the "ack code".
  assert.deepEqual(parseAckedH('WgfZR/gh+abc='), { ackCode: 'WgfZR/gh+abc=', record: null });
});

test('historicalTimes for H: timestamp now, expiry now + lifetime', () => {
  const rec = parseH('*-LOG-Test,0,86400,x')!;
  assert.deepEqual(historicalTimes(rec, 1_000_000), { time: 1_000_000, expires: 1_086_400 });
});

test('historicalTimes for h: timestamp now + timediff, expiry timestamp + lifetime (§15, §19 #14)', () => {
  const rec = parseAckedH('1,-600,*-LOG-Test,0,3600,x').record!;
  assert.deepEqual(historicalTimes(rec, 1_000_000), { time: 999_400, expires: 1_003_000 });
});

test('historicalTimes clamps a positive timediff and a negative lifetime', () => {
  const future = parseAckedH('1,600,*-LOG-Test,0,3600,x').record!;
  assert.deepEqual(historicalTimes(future, 1_000_000), { time: 1_000_000, expires: 1_003_600 });
  const negative = parseH('*-LOG-Test,0,-5,x')!;
  assert.deepEqual(historicalTimes(negative, 1_000_000), { time: 1_000_000, expires: 1_000_000 });
});

test('isUtilisationType: the traffic counters type in any ASCII case, nothing else', () => {
  for (const t of ['*-OVM-Utilisation', '*-ovm-utilisation', '*-OVM-UTILISATION']) assert.equal(isUtilisationType(t), true, t);
  for (const t of ['*-OVM-Utilisation ', '*-OVM-Utilisatio', 'D', '', '*-OVM-Utilization']) assert.equal(isUtilisationType(t), false, t);
});
