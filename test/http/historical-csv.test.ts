/**
 * The CSV download of historical records (README, HTTP API v2, "CSV downloads"):
 * `GET /api/historical/<id>[/<type>]?format=csv` for logged-in users (ownership as the JSON
 * version) and `/api/<service>/csv` with the vehicle id and car password (as `/api/<service>/cmd`):
 * `text/csv; charset=utf-8`, an attachment named after vehicle and types, RFC 4180 with CRLF, the
 * data split into `field1…fieldN`, rows by type, time, record number; 413 beyond 100,000 records.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../mp/helpers.js';
import { httpHarness, type HttpHarness, type HttpResponse } from './helpers.js';

const VID = 'TESTCAR';
const CSV_TYPE = 'text/csv; charset=utf-8';
const RECORD_HEADER = ['vehicleid', 'type', 'recordnumber', 'timestamp'];
const T0 = Date.UTC(2024, 0, 2, 3, 4, 5) / 1000; // 2024-01-02 03:04:05
const AUTH = `fn.vehicleid=${VID}&fn.carpass=NETPASS`;

/** RFC 4180 parser for the assertions: every row ends in CRLF, quoted fields may hold anything. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"') {
      assert.equal(field, '', 'a quote opens a field only at its start');
      quoted = true;
    } else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else {
      assert.ok(c !== '\r' && c !== '\n', 'a bare line break outside quotes');
      field += c;
    }
  }
  assert.ok(!quoted && field === '' && row.length === 0, 'the text ends with CRLF');
  return rows;
}

function assertCsv(r: HttpResponse, filename: string, what: string): string[][] {
  assert.equal(r.status, 200, `${what}: ${r.body}`);
  assert.equal(r.headers['content-type'], CSV_TYPE, what);
  assert.equal(r.headers['content-disposition'], `attachment; filename="${filename}"`, what);
  assert.equal(r.headers['access-control-allow-origin'], '*', what);
  const rows = parseCsv(r.body);
  const width = rows[0]!.length;
  for (const row of rows) assert.equal(row.length, width, `${what}: every row as wide as the header`);
  return rows;
}

const fields = (n: number): string[] => Array.from({ length: n }, (_, i) => `field${i + 1}`);

async function add(h: HttpHarness, type: string, time: number, recordNumber: number, data: string, vehicleId = VID): Promise<void> {
  await h.t.server.store.addHistorical({ vehicleId, type, recordNumber, time, data, expires: Math.floor(Date.now() / 1000) + 86400 });
}

/** Records of three types (one in lower case) and of another vehicle. */
async function withRecords(h: HttpHarness): Promise<void> {
  await add(h, '*-LOG-Trip', T0 + 60, 0, '12.5,km,"fast" trip');
  await add(h, '*-LOG-Trip', T0, 1, 'a,b,c,d');
  await add(h, '*-LOG-Trip', T0, 0, 'first');
  await add(h, '*-log-alpha', T0 + 3600, 7, 'line one\nline two');
  await add(h, 'X', T0, 0, 'not asked');
  await add(h, '*-LOG-Trip', T0, 0, 'another car', 'DEMO1');
}

test('GET /api/historical/<id>/<type>?format=csv: the records of a car, split into fields; the JSON is unchanged', async (ctx) => {
  const h = await httpHarness(ctx);
  const car = await h.car(VID);
  assert.deepEqual(await car.next(), { code: 'Z', data: '0' });
  car.send('H', '*-LOG-Test,0,86400,hello,world');
  car.send('h', '7,0,*-LOG-Test,1,86400,delayed,"quoted" record,3');
  assert.deepEqual(await car.next(), { code: 'h', data: '7' });
  const r = await eventually(async () => {
    const x = await h.asDemo(`/api/historical/${VID}/*-log-test?format=csv`);
    return x.body.split('\r\n').length === 4 ? x : undefined;
  }, 'both records in the CSV');
  const rows = assertCsv(r, `${VID}-_-log-test.csv`, 'records');
  assert.deepEqual(rows[0], [...RECORD_HEADER, ...fields(3)]);
  assert.deepEqual(
    rows.slice(1).map((x) => [x[0], x[1], x[2], ...x.slice(4)]),
    [
      [VID, '*-LOG-Test', '0', 'hello', 'world', ''],
      [VID, '*-LOG-Test', '1', 'delayed', '"quoted" record', '3'],
    ],
  );
  assert.ok(r.body.includes(',"""quoted"" record",3\r\n'), 'quotes doubled inside a quoted field');

  // without format=csv (or with another format) the JSON, with the same timestamps
  for (const query of ['', '?format=json', '?format=xml']) {
    const j = await h.asDemo(`/api/historical/${VID}/*-log-test${query}`);
    assert.equal(j.status, 200, query);
    assert.equal(j.headers['content-type'], 'application/json', query);
    assert.equal(j.headers['content-disposition'], undefined, query);
    const json = JSON.parse(j.body) as { h_data: string; h_recordnumber: number; h_timestamp: string }[];
    assert.deepEqual(
      json.map((x) => [x.h_recordnumber, x.h_data, x.h_timestamp]),
      rows.slice(1).map((x) => [Number(x[2]), x.slice(4).join(',').replace(/,$/, ''), x[3]]),
      query,
    );
  }
  // format is case-insensitive
  assert.equal((await h.asDemo(`/api/historical/${VID}/*-LOG-Test?format=CSV`)).body, r.body);
});

test('GET /api/historical/<id>?format=csv: the summary as CSV; the JSON summary unchanged', async (ctx) => {
  const h = await httpHarness(ctx);
  await withRecords(h);
  const r = await h.asDemo(`/api/historical/${VID}?format=csv`);
  const rows = assertCsv(r, `${VID}-summary.csv`, 'summary');
  const json = JSON.parse((await h.asDemo(`/api/historical/${VID}`)).body) as Record<string, string | number>[];
  assert.deepEqual(rows, [
    ['vehicleid', 'type', 'distinctrecs', 'totalrecs', 'totalsize', 'first', 'last'],
    ...json.map((x) => [VID, x.h_recordtype, x.distinctrecs, x.totalrecs, x.totalsize, x.first, x.last].map(String)),
  ]);
  assert.deepEqual(
    rows.slice(1).map((x) => [x[1], x[3], x[5], x[6]]),
    [
      ['*-log-alpha', '1', '2024-01-02 04:04:05', '2024-01-02 04:04:05'],
      ['*-LOG-Trip', '3', '2024-01-02 03:04:05', '2024-01-02 03:05:05'],
      ['X', '1', '2024-01-02 03:04:05', '2024-01-02 03:04:05'],
    ],
  );
  const since = await h.asDemo(`/api/historical/${VID}?format=csv&since=${encodeURIComponent('2024-01-02 03:04:05')}`);
  assert.deepEqual(
    assertCsv(since, `${VID}-summary.csv`, 'summary since').map((x) => x[1]),
    ['type', '*-log-alpha', '*-LOG-Trip'],
  );
});

test('/api/ovms/csv: several types by vehicle id and car password, ordered by type, time, record number; quoting', async (ctx) => {
  const h = await httpHarness(ctx);
  await withRecords(h);
  const r = await h.request(`/api/ovms/csv?${AUTH}&fn.types=${encodeURIComponent('*-log-trip, *-LOG-Alpha,*-LOG-None,*-LOG-TRIP')}`);
  const rows = assertCsv(r, `${VID}-_-LOG-Alpha+_-LOG-None+_-log-trip.csv`, 'custom');
  assert.deepEqual(rows, [
    [...RECORD_HEADER, ...fields(4)],
    [VID, '*-log-alpha', '7', '2024-01-02 04:04:05', 'line one\nline two', '', '', ''],
    [VID, '*-LOG-Trip', '0', '2024-01-02 03:04:05', 'first', '', '', ''],
    [VID, '*-LOG-Trip', '1', '2024-01-02 03:04:05', 'a', 'b', 'c', 'd'],
    [VID, '*-LOG-Trip', '0', '2024-01-02 03:05:05', '12.5', 'km', '"fast" trip', ''],
  ]);
  assert.equal(
    r.body,
    'vehicleid,type,recordnumber,timestamp,field1,field2,field3,field4\r\n' +
      'TESTCAR,*-log-alpha,7,2024-01-02 04:04:05,"line one\nline two",,,\r\n' +
      'TESTCAR,*-LOG-Trip,0,2024-01-02 03:04:05,first,,,\r\n' +
      'TESTCAR,*-LOG-Trip,1,2024-01-02 03:04:05,a,b,c,d\r\n' +
      'TESTCAR,*-LOG-Trip,0,2024-01-02 03:05:05,12.5,km,"""fast"" trip",\r\n',
  );

  // fn.since: strictly newer, UTC, with or without a time
  const after = encodeURIComponent('2024-01-02 03:04:05');
  const since = await h.request(`/api/ovms/csv?${AUTH}&fn.types=*-LOG-Trip,*-log-alpha&fn.since=${after}`);
  assert.deepEqual(
    assertCsv(since, `${VID}-_-log-alpha+_-LOG-Trip.csv`, 'since').slice(1).map((x) => [x[1], x[3]]),
    [
      ['*-log-alpha', '2024-01-02 04:04:05'],
      ['*-LOG-Trip', '2024-01-02 03:05:05'],
    ],
  );
  const day = await h.request(`/api/ovms/csv?${AUTH}&fn.types=*-LOG-Trip&fn.since=2024-01-03`);
  assert.equal(day.body, 'vehicleid,type,recordnumber,timestamp,field1\r\n', 'nothing newer: the header alone');

  // the vehicle id in any case; the call alias; POST with a form body
  const lower = await h.request(`/api/ovms/csv?fn.vehicleid=testcar&fn.carpass=NETPASS&fn.types=x`);
  assert.deepEqual(assertCsv(lower, `${VID}-x.csv`, 'lower-case id').slice(1), [[VID, 'X', '0', '2024-01-02 03:04:05', 'not asked']]);
  const alias = await h.request(`/api/call?fn.name=ovms/csv&${AUTH}&fn.types=X`);
  assert.equal(alias.body, lower.body);
  const post = await h.request('/api/ovms/csv', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `${AUTH}&fn.types=X`,
  });
  assert.equal(post.status, 200);
  assert.equal(post.body, lower.body);
});

test('/api/ovms/csv: 401 for a wrong password or vehicle, 400 for missing or bad input, 404 for other paths', async (ctx) => {
  const h = await httpHarness(ctx);
  await withRecords(h);
  for (const q of [`fn.vehicleid=${VID}&fn.carpass=nope&fn.types=X`, `fn.vehicleid=NOSUCH&fn.carpass=NETPASS&fn.types=X`]) {
    const r = await h.request(`/api/ovms/csv?${q}`);
    assert.equal(r.status, 401, q);
    assert.equal(r.headers['content-type'], 'text/plain', q);
    assert.equal(r.body, 'Authentication failed\n', q);
  }
  assert.ok(h.t.logs.some((l) => l.includes('custom API authentication failed')));
  for (const q of [AUTH, `${AUTH}&fn.types=,%20,`, `fn.carpass=NETPASS&fn.types=X`, `fn.vehicleid=${VID}&fn.types=X`]) {
    const r = await h.request(`/api/ovms/csv?${q}`);
    assert.equal(r.status, 400, q);
    assert.equal(r.body, 'Missing fn.vehicleid, fn.carpass or fn.types\n', q);
  }
  const badSince = await h.request(`/api/ovms/csv?${AUTH}&fn.types=X&fn.since=yesterday`);
  assert.equal(badSince.status, 400);
  assert.match(badSince.body, /^Invalid fn\.since/);
  // a bad since is checked only once the caller is known
  assert.equal((await h.request(`/api/ovms/csv?fn.vehicleid=${VID}&fn.carpass=nope&fn.types=X&fn.since=yesterday`)).status, 401);
  for (const path of ['/api/ovms/csv/more', '/api/ovms/csvx', `/api/call?fn.name=ovms/csvx&${AUTH}&fn.types=X`]) {
    assert.equal((await h.request(`${path}${path.includes('?') ? '' : `?${AUTH}&fn.types=X`}`)).status, 404, path);
  }
  // the login API's credentials are not the car's
  assert.equal((await h.request(`/api/ovms/csv?username=demo&password=demopass&fn.vehicleid=${VID}&fn.types=X`)).status, 400);
});

test('/api/historical/<id>?format=csv: 401 without credentials, 403 for another owner\'s vehicle; 400 for a bad since', async (ctx) => {
  const h = await httpHarness(ctx);
  await withRecords(h);
  const other = await h.t.addUser('other', 'otherpass');
  await h.t.addVehicle('OTHERCAR', other, 'NETPASS');
  await add(h, 'X', T0, 0, 'secret', 'OTHERCAR');
  for (const path of ['/api/historical/OTHERCAR/X?format=csv', '/api/historical/OTHERCAR?format=csv']) {
    const r = await h.asDemo(path);
    assert.equal(r.status, 403, path);
    assert.equal(r.body, 'Forbidden\n', path);
    const anonymous = await h.request(path);
    assert.equal(anonymous.status, 401, path);
  }
  // the other owner's view of their vehicle, with a session cookie
  const cookie = await h.login('other', 'otherpass');
  const own = await h.request('/api/historical/othercar/x?format=csv', { headers: { cookie } });
  assert.deepEqual(assertCsv(own, 'OTHERCAR-x.csv', 'own').slice(1), [['OTHERCAR', 'X', '0', '2024-01-02 03:04:05', 'secret']]);
  // the custom API: only with that vehicle's own password
  const viaCar = await h.request('/api/ovms/csv?fn.vehicleid=OTHERCAR&fn.carpass=NETPASS&fn.types=X');
  assert.equal(viaCar.status, 200);
  const bad = await h.asDemo(`/api/historical/${VID}/X?format=csv&since=2024-13-01`);
  assert.equal(bad.status, 400);
  assert.match(bad.body, /^Invalid since/);
});

test('the service segment is configurable: /api/<service>/csv', async (ctx) => {
  const h = await httpHarness(ctx, { commandService: 'dexters' });
  await withRecords(h);
  const r = await h.request(`/api/dexters/csv?${AUTH}&fn.types=X`);
  assert.equal(assertCsv(r, `${VID}-X.csv`, 'dexters').length, 2);
  assert.equal((await h.request(`/api/call?fn.name=dexters/csv&${AUTH}&fn.types=X`)).body, r.body);
  assert.equal((await h.request(`/api/ovms/csv?${AUTH}&fn.types=X`)).status, 404);
});

test('more than 100,000 records: 413 with a hint to use since; since narrows the download', async (ctx) => {
  const h = await httpHarness(ctx);
  const expires = Math.floor(Date.now() / 1000) + 86400;
  const store = h.t.server.store;
  for (let i = 0; i <= 100_000; i++) {
    void store.addHistorical({ vehicleId: VID, type: '*-LOG-Big', recordNumber: 0, time: T0 + i, data: `${i}`, expires });
  }
  await store.flush();
  const big = await h.request(`/api/ovms/csv?${AUTH}&fn.types=*-LOG-Big`);
  assert.equal(big.status, 413);
  assert.equal(big.headers['content-type'], 'text/plain');
  assert.equal(big.body, 'More than 100000 records: use fn.since to download them in parts\n');
  const v2 = await h.asDemo(`/api/historical/${VID}/*-LOG-Big?format=csv`);
  assert.equal(v2.status, 413);
  assert.equal(v2.body, 'More than 100000 records: use since to download them in parts\n');
  // without the first record: exactly 100,000
  const since = encodeURIComponent('2024-01-02 03:04:05');
  const ok = await h.request(`/api/ovms/csv?${AUTH}&fn.types=*-LOG-Big&fn.since=${since}`);
  assert.equal(ok.status, 200);
  const lines = ok.body.split('\r\n');
  assert.equal(lines.length, 100_002, 'header, 100,000 rows, and the empty rest after the last CRLF');
  assert.equal(lines[1], `${VID},*-LOG-Big,0,2024-01-02 03:04:06,1`);
  assert.equal(lines[100_000], `${VID},*-LOG-Big,0,2024-01-03 06:50:45,100000`);
});
