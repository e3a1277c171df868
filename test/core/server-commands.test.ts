/** Server-side commands 30/31/32 (src/core/mp/server-commands.ts, docs/protocol/mp.md §11.4). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  historicalRecordsResponse,
  historicalSummaryResponse,
  utilisationResponse,
} from '../../src/core/mp/server-commands.js';
import { serverCommandFixtures } from '../fixtures/load.js';

const F = serverCommandFixtures();

test('c31 lines exactly as in transcripts §7 (cmd.pl 31)', () => {
  assert.deepEqual(historicalSummaryResponse(F.c31_section7.types), F.c31_section7.lines);
  assert.equal(historicalSummaryResponse(F.c31_section7.types)[1], '31,0,2,3,L,1,1,46,2026-11-22 02:13:38,2026-11-22 02:13:38');
});

test('c31 lines exactly as in transcripts §8 (app command 31)', () => {
  assert.deepEqual(historicalSummaryResponse(F.c31_section8.types), F.c31_section8.lines);
});

test('c31 lines exactly as in transcripts §8a (scheme 1, four types)', () => {
  assert.deepEqual(historicalSummaryResponse(F.c31_section8a.types), F.c31_section8a.lines);
});

test('c32 line exactly as in transcripts §7 (data with commas passed through)', () => {
  assert.deepEqual(historicalRecordsResponse(F.c32_section7.rows), F.c32_section7.lines);
});

test('c30 line exactly as in transcripts §8b', () => {
  assert.deepEqual(utilisationResponse(F.c30_section8b.days), F.c30_section8b.lines);
});

test('empty answers', () => {
  assert.deepEqual(utilisationResponse([]), [F.empty.c30]);
  assert.deepEqual(historicalSummaryResponse([]), [F.empty.c31]);
  assert.deepEqual(historicalRecordsResponse([]), [F.empty.c32]);
});

test('lines are numbered 1…n with n the count', () => {
  const rows = Array.from({ length: 12 }, (_, k) => ({ type: 'T', time: k, recordNumber: k, data: `d${k}` }));
  const lines = historicalRecordsResponse(rows);
  assert.equal(lines.length, 12);
  assert.equal(lines[0], '32,0,1,12,T,1970-01-01 00:00:00,0,d0');
  assert.equal(lines[11], '32,0,12,12,T,1970-01-01 00:00:11,11,d11');
});
