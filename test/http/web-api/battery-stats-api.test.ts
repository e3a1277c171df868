/**
 * `GET /api/battery/<VEHICLEID>` and `GET /api/stats/<VEHICLEID>` on a real server and store
 * (docs/web-api.md "Battery", "Stats"): the documented key order and types, the stats' periods,
 * time zones and default ranges, 400s that name the field, 403 for another owner's vehicle; and
 * the OpenAPI document describes every new call.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildOpenApiDocument } from '../../../src/http/openapi/document.js';
import { httpHarness } from '../helpers.js';
import { asOther, assertBadField, assertSchema, assertStatusError, body, charge, drive, otherOwner, seed, STATS_KEYS } from './sessions-helpers.js';

const DAY = 86_400;

type Row = Record<string, unknown> & { start: number };

test('battery: capacity per charge of 10 SOC points or more, the estimate, SOH and vampire drain, in the documented key order', async (t) => {
  const h = await httpHarness(t);
  const t0 = Math.floor(Date.now() / 1000) - 20 * DAY;
  await seed(h, 'DEMO1', [
    charge(t0, { socStart: 30, socEnd: 80, energyAdded: 25, soh: 98 }), // 50 kWh
    drive(t0 + DAY, { socStart: 80, socEnd: 74 }),
    charge(t0 + 3 * DAY, { socStart: 72, socEnd: 92, energyAdded: 9.6, soh: 97 }), // 48 kWh
    charge(t0 + 5 * DAY, { socStart: 90, socEnd: 95, energyAdded: 2.5, soh: 97 }), // too small a gain
  ]);
  const r = await h.asDemo('/api/battery/DEMO1');
  assert.equal(r.status, 200, r.body);
  assert.equal(r.headers['content-type'], 'application/json');
  const b = body<{
    capacity: { estimate: number | null; max: number | null; degradation: number | null };
    samples: { t: number; capacity: number; socGain: number; energy: number }[];
    soh: [number, number][];
    vampireDrain: { perDay: number | null; samples: Record<string, number>[] };
  }>(r);
  assert.deepEqual(Object.keys(b), ['capacity', 'samples', 'soh', 'vampireDrain']);
  assert.deepEqual(Object.keys(b.capacity), ['estimate', 'max', 'degradation']);
  assertSchema('Battery', b);
  assert.deepEqual(b.samples.map((s) => Object.keys(s)), [['t', 'capacity', 'socGain', 'energy'], ['t', 'capacity', 'socGain', 'energy']], 'only the charges of 10 points or more');
  assert.deepEqual(b.samples.map((s) => Math.round(s.capacity * 10) / 10), [50, 48]);
  assert.deepEqual(b.capacity, { estimate: 49, max: 50, degradation: 2 }, 'the median of the recent samples, the highest, and 2 % below it');
  assert.ok(b.soh.length > 0 && b.soh.every((p) => p.length === 2 && typeof p[0] === 'number' && typeof p[1] === 'number'), 'SOH as [t, soh]');
  assert.ok(b.soh.some((p) => p[1] === 98));
  assert.ok(b.vampireDrain.samples.every((s) => Object.keys(s).join() === 'start,end,socLost,perDay'));
  // parked: 74 → 72 in 47.5 h after the drive, 92 → 90 in 44 h after the second charge
  assert.deepEqual(b.vampireDrain.samples.map((s) => s.socLost), [2, 2], 'SOC lost while parked between sessions');
  assert.deepEqual(b.vampireDrain.samples.map((s) => s.perDay), [1.01, 1.09]);
  assert.equal(b.vampireDrain.perDay, 1.05, 'the median of the samples');

  // no sessions: nulls and empty lists
  const empty = body<typeof b>(await h.asDemo('/api/battery/TESTCAR'));
  assert.deepEqual(empty, { capacity: { estimate: null, max: null, degradation: null }, samples: [], soh: [], vampireDrain: { perDay: null, samples: [] } });

  await otherOwner(h);
  assertStatusError(await h.asDemo('/api/battery/OTHER1'), 403, 'VTS_ERR_UNKNOWN_VEHICLE');
  assertStatusError(await asOther(h, '/api/battery/DEMO1'), 403, 'VTS_ERR_UNKNOWN_VEHICLE');
});

test('stats: rows per day in a time zone, the documented key order, sums of the sessions', async (t) => {
  const h = await httpHarness(t);
  // midnight of 2026-01-05 in Berlin (UTC+1 in winter)
  const monday = Date.UTC(2026, 0, 4, 23) / 1000;
  await seed(h, 'DEMO1', [
    drive(monday + DAY + 8 * 3600),
    drive(monday + DAY + 17 * 3600, { distance: 15, energyUsed: 3 }),
    charge(monday + 2 * DAY + 20 * 3600),
  ]);
  const r = await h.asDemo(`/api/stats/DEMO1?period=day&tz=Europe/Berlin&from=${monday}&to=${monday + 3 * DAY - 1}`);
  assert.equal(r.status, 200, r.body);
  const rows = body<Row[]>(r);
  assert.deepEqual(rows.map((x) => x.start), [monday, monday + DAY, monday + 2 * DAY], 'the days of Berlin, empty ones too');
  for (const row of rows) {
    assert.deepEqual(Object.keys(row), STATS_KEYS);
    assertSchema('StatsRow', row);
  }
  assert.equal(rows[0]!.drives, 0);
  assert.equal(rows[0]!.distance, 0);
  assert.equal(rows[1]!.drives, 2);
  assert.equal(rows[1]!.distance, 40);
  assert.equal(rows[1]!.energyUsed, 7);
  assert.equal(rows[1]!.efficiency, 175, '7 kWh used over 40 km (the energy used, as the issue defines efficiency)');
  assert.equal(rows[2]!.charges, 1);
  assert.equal(rows[2]!.energyAdded, 25);
  assert.equal(rows[2]!.energyFromGrid, 27.5);

  // the same days in UTC start an hour later
  const utc = body<Row[]>(await h.asDemo(`/api/stats/DEMO1?period=day&from=${monday + 3600}&to=${monday + 3 * DAY}`));
  assert.deepEqual(utc.map((x) => x.start), [monday + 3600, monday + 3600 + DAY, monday + 3600 + 2 * DAY]);

  // a month: both days in one row
  const month = body<Row[]>(await h.asDemo(`/api/stats/DEMO1?period=month&from=${Date.UTC(2026, 0, 1) / 1000}&to=${Date.UTC(2026, 0, 31) / 1000}`));
  assert.equal(month.length, 1);
  assert.equal(month[0]!.start, Date.UTC(2026, 0, 1) / 1000);
  assert.equal(month[0]!.drives, 2);
  assert.equal(month[0]!.charges, 1);
});

test('stats: the default period and ranges; bad values are 400s that name the field; 403 for another owner', async (t) => {
  const h = await httpHarness(t);
  const counts: Record<string, [number, number]> = { '': [12, 13], 'period=month': [12, 13], 'period=day': [30, 31], 'period=week': [26, 27], 'period=year': [5, 6] };
  for (const [query, [low, high]] of Object.entries(counts)) {
    const r = await h.asDemo(`/api/stats/DEMO1?${query}`);
    assert.equal(r.status, 200, r.body);
    const rows = body<Row[]>(r);
    assert.ok(rows.length >= low && rows.length <= high, `${query || 'no period'}: ${rows.length} rows`);
    assert.ok(rows.every((x) => x.drives === 0 && x.distance === 0), 'empty periods');
  }
  assertBadField(await h.asDemo('/api/stats/DEMO1?period=hour'), 'period');
  assertBadField(await h.asDemo('/api/stats/DEMO1?tz=Mars/Olympus'), 'tz');
  assertBadField(await h.asDemo('/api/stats/DEMO1?from=x'), 'from');
  assertBadField(await h.asDemo('/api/stats/DEMO1?to=1.5'), 'to');
  assertBadField(await h.asDemo('/api/stats/DEMO1?from=2000&to=1000'), 'from');
  assertBadField(await h.asDemo(`/api/stats/DEMO1?period=day&from=0&to=${1001 * DAY}`), 'to');
  await otherOwner(h);
  assertStatusError(await h.asDemo('/api/stats/OTHER1'), 403, 'VTS_ERR_UNKNOWN_VEHICLE');
  assertStatusError(await asOther(h, '/api/stats/DEMO1'), 403, 'VTS_ERR_UNKNOWN_VEHICLE');
});

test('the OpenAPI document describes the drives, charges, places, battery and stats calls', () => {
  const doc = buildOpenApiDocument();
  const expected: Record<string, string[]> = {
    '/api/drives/{vehicleId}': ['get'],
    '/api/drives/{vehicleId}/{id}': ['get'],
    '/api/drives/{vehicleId}/{id}/gpx': ['get'],
    '/api/charges/{vehicleId}': ['get'],
    '/api/charges/{vehicleId}/{id}': ['get'],
    '/api/places': ['get', 'post'],
    '/api/places/{id}': ['put', 'delete'],
    '/api/battery/{vehicleId}': ['get'],
    '/api/stats/{vehicleId}': ['get'],
  };
  for (const [path, methods] of Object.entries(expected)) {
    assert.deepEqual(Object.keys(doc.paths[path] ?? {}).sort(), [...methods].sort(), path);
  }
  for (const name of ['Drive', 'DriveDetail', 'PathPoint', 'Charge', 'ChargeDetail', 'ChargeSample', 'Place', 'NewPlace', 'TariffWindow', 'Battery', 'StatsRow']) {
    assert.ok(doc.components.schemas[name], `the schema ${name}`);
  }
  const list = doc.paths['/api/drives/{vehicleId}']!.get!;
  const ok = list.responses['200'] as { content: Record<string, unknown> };
  assert.deepEqual(Object.keys(ok.content).sort(), ['application/json', 'text/csv']);
});
