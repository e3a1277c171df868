/**
 * `GET /api/historical/<VEHICLEID>[/<RECORDTYPE>]` (docs/protocol/http-api-v2.md §4.12, docs/protocol/transcripts.md
 * §4; docs/compatibility.md HTTP #15, Store #6): the summary has one row per record type, ordered
 * by type case-insensitively, with `distinctrecs`/`totalrecs` numbers and `totalsize` a string;
 * the records of one type (named in any case) are ordered by time, then record number; `since`
 * keeps only records strictly newer, and a `since` that is not a date is a 400. Car data messages
 * are history of their code only while `messageHistory` > 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MpClient, MpMessage } from '../../src/mp-client/mp-client.js';
import { eventually } from '../mp/helpers.js';
import { httpHarness, type HttpHarness, type HttpResponse } from './helpers.js';

const VID = 'TESTCAR';
const SUMMARY_KEYS = ['distinctrecs', 'first', 'h_recordtype', 'last', 'totalrecs', 'totalsize'];
const RECORD_KEYS = ['h_data', 'h_recordnumber', 'h_timestamp'];
const DATE_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;
const STATUS = '80,K,220,70,charging,standard,280,270';

interface SummaryRow {
  distinctrecs: number;
  first: string;
  h_recordtype: string;
  last: string;
  totalrecs: number;
  totalsize: string;
}
interface RecordRow {
  h_data: string;
  h_recordnumber: number;
  h_timestamp: string;
}

const nowSec = (): number => Math.floor(Date.now() / 1000);
const epoch = (dateTime: string): number => Date.parse(dateTime.replace(' ', 'T') + 'Z') / 1000;
/** REF's size of one record: len(type) + len(data) + len(vehicle id) + 20. */
const size = (type: string, data: string): number => type.length + data.length + VID.length + 20;

function assertJson(r: HttpResponse, what: string): unknown {
  assert.equal(r.status, 200, `${what}: ${r.body}`);
  assert.equal(r.headers['content-type'], 'application/json', what);
  assert.ok(r.body.endsWith('\n'), what);
  return JSON.parse(r.body);
}

function assertWithin(dateTime: string, from: number, to: number, what: string): void {
  assert.match(dateTime, DATE_TIME, what);
  const t = epoch(dateTime);
  assert.ok(t >= from && t <= to, `${what}: ${dateTime} not within [${from}, ${to}]`);
}

/** Sends `A` and reads until its `a`, checking that the awaited `h` acks arrived on the way. */
async function untilAcked(car: MpClient, acks: string[]): Promise<void> {
  car.send('A');
  const seen: MpMessage[] = [];
  for (;;) {
    const msg = await car.next();
    if (msg.code === 'a') break;
    seen.push(msg);
  }
  while (seen.filter((m) => m.code === 'h').length < acks.length) seen.push(await car.next());
  assert.deepEqual(
    seen.map((m) => `${m.code}${m.data}`).sort(),
    acks.map((a) => `h${a}`).sort(),
  );
}

/** A car that sends H and h records of three types (one in lower case) and an S. */
async function withData(h: HttpHarness): Promise<{ t0: number; t1: number }> {
  const car = await h.car(VID);
  assert.deepEqual(await car.next(), { code: 'Z', data: '0' });
  const t0 = nowSec();
  car.send('H', '*-LOG-Test,0,86400,hello,world');
  car.send('h', '7,0,*-LOG-Test,1,86400,delayed,record');
  car.send('h', '8,-3600,*-LOG-Test,5,86400,an hour ago');
  car.send('h', '9,-60,*-LOG-Test,0,86400,a minute ago');
  car.send('H', '*-log-alpha,3,86400,lower case type');
  car.send('S', STATUS);
  await untilAcked(car, ['7', '8', '9']);
  const t1 = nowSec();
  // written behind: wait until every type is visible
  await eventually(async () => {
    const r = await h.asDemo(`/api/historical/${VID}`);
    return (JSON.parse(r.body) as unknown[]).length === 3 ? true : undefined;
  }, 'three record types in the summary');
  return { t0, t1 };
}

test('the summary: one row per type, ordered case-insensitively, with REF value types', async (ctx) => {
  const h = await httpHarness(ctx);
  const { t0, t1 } = await withData(h);
  const r = await h.asDemo(`/api/historical/${VID}`);
  const rows = assertJson(r, 'summary') as SummaryRow[];
  for (const row of rows) {
    assert.deepEqual(Object.keys(row), SUMMARY_KEYS);
    assert.equal(typeof row.distinctrecs, 'number');
    assert.equal(typeof row.totalrecs, 'number');
    assert.equal(typeof row.totalsize, 'string', 'totalsize is a string (MySQL DECIMAL)');
  }
  // binary order would put *-LOG-Test before *-log-alpha
  assert.deepEqual(
    rows.map((x) => x.h_recordtype),
    ['*-log-alpha', '*-LOG-Test', 'S'],
  );
  const [alpha, logTest, s] = rows as [SummaryRow, SummaryRow, SummaryRow];

  assert.equal(alpha.distinctrecs, 1);
  assert.equal(alpha.totalrecs, 1);
  assert.equal(alpha.totalsize, String(size('*-log-alpha', 'lower case type')));
  assert.equal(alpha.first, alpha.last);
  assertWithin(alpha.first, t0, t1, 'alpha');

  assert.equal(logTest.distinctrecs, 3, 'record numbers 0, 1, 5');
  assert.equal(logTest.totalrecs, 4);
  const datas = ['hello,world', 'delayed,record', 'an hour ago', 'a minute ago'];
  assert.equal(logTest.totalsize, String(datas.reduce((n, d) => n + size('*-LOG-Test', d), 0)));
  assertWithin(logTest.first, t0 - 3600, t1 - 3600, 'first is the record an hour old');
  assertWithin(logTest.last, t0, t1, 'last');

  assert.equal(s.distinctrecs, 1);
  assert.equal(s.totalrecs, 1);
  assert.equal(s.totalsize, String(size('S', STATUS)));
  assertWithin(s.first, t0, t1, 'S');
  assert.equal(s.first, s.last);

  // the exact bytes: sorted keys, compact, one trailing newline
  assert.equal(r.body, JSON.stringify(rows) + '\n');
});

test('the records of one type: ordered by time, then record number; the type matches in any case', async (ctx) => {
  const h = await httpHarness(ctx);
  const { t0, t1 } = await withData(h);
  const r = await h.asDemo(`/api/historical/${VID}/*-LOG-Test`);
  const rows = assertJson(r, 'records') as RecordRow[];
  for (const row of rows) {
    assert.deepEqual(Object.keys(row), RECORD_KEYS);
    assert.equal(typeof row.h_recordnumber, 'number');
    assert.equal(typeof row.h_data, 'string');
  }
  assert.deepEqual(
    rows.map((x) => [x.h_recordnumber, x.h_data]),
    [
      [5, 'an hour ago'],
      [0, 'a minute ago'],
      [0, 'hello,world'],
      [1, 'delayed,record'],
    ],
  );
  const [hour, minute, h0, h7] = rows as [RecordRow, RecordRow, RecordRow, RecordRow];
  assertWithin(hour.h_timestamp, t0 - 3600, t1 - 3600, 'timediff -3600');
  assertWithin(minute.h_timestamp, t0 - 60, t1 - 60, 'timediff -60');
  assertWithin(h0.h_timestamp, t0, t1, 'H');
  assertWithin(h7.h_timestamp, t0, t1, 'h7');
  assert.equal(r.body, JSON.stringify(rows) + '\n');

  for (const spelling of ['*-log-test', '*-Log-TEST', '%2A-LOG-Test']) {
    const other = await h.asDemo(`/api/historical/${VID}/${spelling}`);
    assert.equal(other.status, 200, spelling);
    assert.equal(other.body, r.body, spelling);
  }
  const alpha = assertJson(await h.asDemo(`/api/historical/${VID}/*-LOG-ALPHA`), 'alpha') as RecordRow[];
  assert.deepEqual(
    alpha.map((x) => [x.h_recordnumber, x.h_data]),
    [[3, 'lower case type']],
  );
  // the S message as history of its code
  const s = assertJson(await h.asDemo(`/api/historical/${VID}/s`), 'S') as RecordRow[];
  assert.deepEqual(
    s.map((x) => [x.h_recordnumber, x.h_data]),
    [[0, STATUS]],
  );
});

test('since keeps only strictly newer records; 2100-01-01 gives []', async (ctx) => {
  const h = await httpHarness(ctx);
  await withData(h);
  for (const path of [`/api/historical/${VID}`, `/api/historical/${VID}/*-LOG-Test`]) {
    const r = await h.asDemo(`${path}?since=2100-01-01`);
    assert.equal(r.status, 200, path);
    assert.equal(r.body, '[]\n', path);
  }
  const all = JSON.parse((await h.asDemo(`/api/historical/${VID}/*-LOG-Test`)).body) as RecordRow[];
  const minuteAgo = all[1]!.h_timestamp;
  const newer = JSON.parse(
    (await h.asDemo(`/api/historical/${VID}/*-LOG-Test?since=${encodeURIComponent(minuteAgo)}`)).body,
  ) as RecordRow[];
  assert.deepEqual(
    newer.map((x) => x.h_data),
    ['hello,world', 'delayed,record'],
    `records after ${minuteAgo}`,
  );

  // in the summary the type's counts shrink accordingly
  const summary = JSON.parse(
    (await h.asDemo(`/api/historical/${VID}?since=${encodeURIComponent(minuteAgo)}`)).body,
  ) as SummaryRow[];
  const logTest = summary.find((x) => x.h_recordtype === '*-LOG-Test');
  assert.equal(logTest?.totalrecs, 2);
  assert.equal(logTest?.distinctrecs, 2);
  // an old date keeps everything
  const old = JSON.parse((await h.asDemo(`/api/historical/${VID}/*-LOG-Test?since=2000-01-01`)).body) as RecordRow[];
  assert.equal(old.length, 4);
});

test('a since that is not a date is a 400', async (ctx) => {
  const h = await httpHarness(ctx);
  await withData(h);
  for (const since of ['yesterday', '2024-13-01', '2024-02-30', '2024-01-01 25:00:00', '1700000000']) {
    for (const path of [`/api/historical/${VID}`, `/api/historical/${VID}/*-LOG-Test`]) {
      const r = await h.asDemo(`${path}?since=${encodeURIComponent(since)}`);
      assert.equal(r.status, 400, `${path} since=${since}: ${r.body}`);
      assert.equal(r.headers['content-type'], 'text/plain');
      assert.match(r.body, /^Invalid since.*\n$/);
    }
  }
});

test('no data: [] for the summary and for any type', async (ctx) => {
  const h = await httpHarness(ctx);
  await withData(h);
  for (const path of ['/api/historical/DEMO1', '/api/historical/DEMO1/S', `/api/historical/${VID}/*-LOG-None`]) {
    const r = await h.asDemo(path);
    assert.equal(r.status, 200, path);
    assert.equal(r.headers['content-type'], 'application/json', path);
    assert.equal(r.body, '[]\n', path);
  }
});

test('with messageHistory 0 car messages are not history; H records still are', async (ctx) => {
  const h = await httpHarness(ctx, { messageHistory: 0 });
  const car = await h.car(VID);
  assert.deepEqual(await car.next(), { code: 'Z', data: '0' });
  car.send('S', STATUS);
  car.send('L', '22.274165,114.185715');
  car.send('h', '1,0,*-LOG-Test,0,86400,kept');
  await untilAcked(car, ['1']);
  // the S is stored as the latest message, though
  const status = JSON.parse((await h.asDemo(`/api/status/${VID}`)).body) as Record<string, unknown>;
  assert.equal(status.soc, '80');

  const summary = assertJson(await h.asDemo(`/api/historical/${VID}`), 'summary') as SummaryRow[];
  assert.deepEqual(
    summary.map((x) => x.h_recordtype),
    ['*-LOG-Test'],
  );
  assert.equal((await h.asDemo(`/api/historical/${VID}/S`)).body, '[]\n');
});
