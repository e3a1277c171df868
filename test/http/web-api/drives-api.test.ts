/**
 * `GET /api/drives/<VEHICLEID>[/<id>[/gpx]]` and `GET /api/charges/<VEHICLEID>[/<id>]` on a real
 * server and store (docs/web-api.md "Drives and charges"): the documented key order and types,
 * the period and its defaults, CSV and GPX parsed back, 403 for another owner's vehicle, 400s that
 * name the field, 404 for an unknown id.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpHarness } from '../helpers.js';
import {
  asOther,
  assertBadField,
  assertSchema,
  assertStatusError,
  body,
  charge,
  CHARGE_KEYS,
  drive,
  DRIVE_KEYS,
  otherOwner,
  parseCsv,
  seed,
} from './sessions-helpers.js';

const DAY = 86_400;

type Row = Record<string, unknown> & { id: number; start: number };

/** Well-formed XML: one root, every tag closed in order, attributes quoted; returns the element names in order. */
function xmlElements(xml: string): string[] {
  assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\s*</);
  const text = xml.replace(/^<\?xml[^>]*\?>/, '');
  const stack: string[] = [];
  const names: string[] = [];
  let roots = 0;
  const tag = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*"[^"<]*")*)\s*(\/?)>|<!--[\s\S]*?-->/g;
  let last = 0;
  for (const m of text.matchAll(tag)) {
    const between = text.slice(last, m.index);
    assert.doesNotMatch(between, /[<>]/, `stray markup: ${between.slice(0, 80)}`);
    assert.doesNotMatch(between, /&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/, 'a bare &');
    last = m.index + m[0].length;
    if (m[0].startsWith('<!--')) continue;
    const [, close, name, , selfClose] = m;
    if (close) assert.equal(stack.pop(), name, `</${name}> closes the open element`);
    else {
      if (stack.length === 0) roots++;
      names.push(name!);
      if (!selfClose) stack.push(name!);
    }
  }
  assert.equal(text.slice(last).trim(), '', 'nothing after the root');
  assert.deepEqual(stack, [], 'every element closed');
  assert.equal(roots, 1, 'one root');
  return names;
}

test('drives: the list of a period in the documented key order, defaults of 30 days, the route only with one drive', async (t) => {
  const h = await httpHarness(t);
  const now = Math.floor(Date.now() / 1000);
  await seed(h, 'DEMO1', [drive(now - 40 * DAY), drive(now - 10 * DAY, { source: 'log' }), drive(now - DAY, { end: null, endOdometer: null })]);
  await seed(h, 'TESTCAR', [drive(now - 2 * DAY)]);

  const r = await h.asDemo('/api/drives/DEMO1');
  assert.equal(r.status, 200, r.body);
  assert.equal(r.headers['content-type'], 'application/json');
  const rows = body<Row[]>(r);
  assert.deepEqual(
    rows.map((d) => d.start),
    [now - 10 * DAY, now - DAY],
    'the default period: the last 30 days, oldest first',
  );
  for (const d of rows) {
    assert.deepEqual(Object.keys(d), DRIVE_KEYS, 'the documented keys in their order, no path');
    assert.deepEqual(Object.keys(d.from as object), ['lat', 'lon', 'place']);
    assertSchema('Drive', d);
  }
  const [done, open] = rows as [Row, Row];
  assert.equal(done.end, now - 10 * DAY + 1800);
  assert.equal(done.duration, 1800);
  assert.equal(done.distance, 25);
  assert.equal(done.units, 'K');
  assert.equal(done.source, 'log');
  assert.deepEqual(done.from, { lat: 48.1, lon: 11.5, place: null });
  assert.equal(typeof done.efficiency, 'number', 'energy used over the distance');
  assert.equal(done.efficiency, 160, '4 kWh used over 25 km (the energy used, as the issue defines efficiency)');
  assert.equal(open.end, null, 'a drive in progress');
  assert.ok((open.duration as number) >= DAY - 5, 'its duration so far');

  // an explicit period, both ends included, overlapping sessions listed
  const old = body<Row[]>(await h.asDemo(`/api/drives/DEMO1?from=${now - 41 * DAY}&to=${now - 40 * DAY}`));
  assert.deepEqual(old.map((d) => d.start), [now - 40 * DAY]);
  const overlap = body<Row[]>(await h.asDemo(`/api/drives/DEMO1?from=${now - 40 * DAY + 100}&to=${now - 40 * DAY + 200}`));
  assert.equal(overlap.length, 1, 'a drive that overlaps the period');
  const onlyFrom = body<Row[]>(await h.asDemo(`/api/drives/DEMO1?from=${now - 50 * DAY}`));
  assert.equal(onlyFrom.length, 3, 'from alone: to is now');
  assert.deepEqual(body<Row[]>(await h.asDemo(`/api/drives/DEMO1?from=${now - 5 * DAY}&to=${now - 3 * DAY}`)), []);

  // one drive: the same row plus its route
  const one = await h.asDemo(`/api/drives/DEMO1/${done.id}`);
  assert.equal(one.status, 200, one.body);
  const detail = body<Row & { path: Record<string, unknown>[] }>(one);
  assert.deepEqual(Object.keys(detail), [...DRIVE_KEYS, 'path']);
  assert.deepEqual({ ...detail, path: undefined }, { ...done, path: undefined });
  assert.equal(detail.path.length, 3);
  assert.deepEqual(Object.keys(detail.path[0]!), ['t', 'lat', 'lon', 'speed', 'soc']);
  assert.deepEqual(detail.path[1], { t: now - 10 * DAY + 900, lat: 48.15, lon: 11.6, speed: 88, soc: 77 });
  assertSchema('DriveDetail', detail);

  // 404: unknown, not a number, another vehicle's drive; 403: another owner's vehicle or an unknown one
  const testcarDrive = body<Row[]>(await h.asDemo(`/api/drives/TESTCAR`))[0]!;
  for (const path of ['/api/drives/DEMO1/999999', '/api/drives/DEMO1/abc', `/api/drives/DEMO1/${testcarDrive.id}`, `/api/drives/DEMO1/${done.id}/kml`]) {
    assertStatusError(await h.asDemo(path), 404, 'VTS_ERR_NOT_FOUND');
  }
  await otherOwner(h);
  await seed(h, 'OTHER1', [drive(now - DAY)]);
  const otherDrive = body<Row[]>(await asOther(h, '/api/drives/OTHER1'))[0]!;
  for (const path of ['/api/drives/OTHER1', `/api/drives/OTHER1/${otherDrive.id}`, `/api/drives/OTHER1/${otherDrive.id}/gpx`, '/api/drives/NOSUCH']) {
    assertStatusError(await h.asDemo(path), 403, 'VTS_ERR_UNKNOWN_VEHICLE');
  }
  assertStatusError(await asOther(h, '/api/drives/DEMO1'), 403, 'VTS_ERR_UNKNOWN_VEHICLE');
  assert.equal((await h.request('/api/drives/DEMO1')).status, 401, 'a login is needed');
});

test('drives and charges: a bad period or format is a 400 that names the field', async (t) => {
  const h = await httpHarness(t);
  for (const list of ['drives', 'charges']) {
    assertBadField(await h.asDemo(`/api/${list}/DEMO1?from=abc`), 'from');
    assertBadField(await h.asDemo(`/api/${list}/DEMO1?to=-5`), 'to');
    assertBadField(await h.asDemo(`/api/${list}/DEMO1?from=200&to=100`), 'from');
    assertBadField(await h.asDemo(`/api/${list}/DEMO1?from=0&to=${401 * DAY}`), 'to');
    assertBadField(await h.asDemo(`/api/${list}/DEMO1?format=xml`), 'format');
    assert.equal((await h.asDemo(`/api/${list}/DEMO1?from=0&to=${400 * DAY}`)).status, 200, '400 days is allowed');
    assert.equal((await h.asDemo(`/api/${list}/DEMO1?from=100&to=100`)).status, 200, 'from = to is allowed');
  }
});

test('drives: CSV with a header and a row per drive, parsed back; one drive as well-formed GPX 1.1', async (t) => {
  const h = await httpHarness(t);
  const now = Math.floor(Date.now() / 1000);
  await seed(h, 'DEMO1', [drive(now - 3 * DAY), drive(now - 2 * DAY, { source: 'log', distance: 12.5 }), drive(now - DAY)]);
  const from = now - 4 * DAY;
  const json = body<Row[]>(await h.asDemo(`/api/drives/DEMO1?from=${from}&to=${now}`));
  const r = await h.asDemo(`/api/drives/DEMO1?from=${from}&to=${now}&format=csv`);
  assert.equal(r.status, 200, r.body);
  assert.equal(r.headers['content-type'], 'text/csv; charset=utf-8');
  assert.equal(r.headers['content-disposition'], `attachment; filename="drives-DEMO1-${from}-${now}.csv"`);
  const rows = parseCsv(r.body);
  assert.equal(rows.length, 4, 'a header and three rows');
  const header = rows[0]!;
  for (const column of ['id', 'start', 'end', 'distance', 'source']) assert.ok(header.includes(column), `a column ${column}: ${header.join()}`);
  for (const [i, row] of rows.slice(1).entries()) {
    assert.equal(row.length, header.length, 'as many fields as the header');
    const field = (name: string) => row[header.indexOf(name)];
    assert.equal(field('id'), String(json[i]!.id));
    assert.equal(Number(field('distance')), json[i]!.distance);
    assert.equal(field('source'), json[i]!.source);
  }

  const id = json[1]!.id;
  const gpx = await h.asDemo(`/api/drives/DEMO1/${id}/gpx`);
  assert.equal(gpx.status, 200, gpx.body);
  assert.equal(gpx.headers['content-type'], 'application/gpx+xml');
  assert.equal(gpx.headers['content-disposition'], `attachment; filename="drive-DEMO1-${id}.gpx"`);
  const names = xmlElements(gpx.body);
  assert.equal(names[0], 'gpx');
  assert.match(gpx.body, /<gpx[^>]*\sversion="1\.1"/);
  assert.match(gpx.body, /<gpx[^>]*\sxmlns="http:\/\/www\.topografix\.com\/GPX\/1\/1"/);
  assert.equal(names.filter((n) => n === 'trk').length, 1, 'one track');
  assert.equal(names.filter((n) => n === 'trkpt').length, 3, 'a point per point of the route');
  const points = [...gpx.body.matchAll(/<trkpt\s+lat="([-\d.]+)"\s+lon="([-\d.]+)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
  assert.deepEqual(points, [
    [48.1, 11.5],
    [48.15, 11.6],
    [48.2, 11.7],
  ]);
  assertStatusError(await h.asDemo('/api/drives/DEMO1/999999/gpx'), 404, 'VTS_ERR_NOT_FOUND');
});

test('charges: the list in the documented key order, one charge with its samples, CSV parsed back', async (t) => {
  const h = await httpHarness(t);
  const now = Math.floor(Date.now() / 1000);
  await seed(h, 'DEMO1', [
    charge(now - 35 * DAY),
    charge(now - 5 * DAY),
    charge(now - 2 * DAY, { chargeKind: 'dc', maxPower: 95, energyFromGrid: null, source: 'log', samples: [] }),
    drive(now - DAY),
  ]);
  const r = await h.asDemo('/api/charges/DEMO1');
  assert.equal(r.status, 200, r.body);
  const rows = body<Row[]>(r);
  assert.deepEqual(rows.map((c) => c.start), [now - 5 * DAY, now - 2 * DAY], 'the last 30 days, no drive among them');
  for (const c of rows) {
    assert.deepEqual(Object.keys(c), CHARGE_KEYS);
    assertSchema('Charge', c);
  }
  const [ac, dc] = rows as [Row, Row];
  assert.equal(ac.kind, 'ac');
  assert.equal(ac.energyAdded, 25);
  assert.equal(ac.energyFromGrid, 27.5);
  assert.equal(ac.duration, 4 * 3600);
  assert.deepEqual(ac.at, { lat: 48.1, lon: 11.5, place: null });
  assert.equal(ac.cost, null, 'outside every place: no cost');
  assert.equal(dc.kind, 'dc');
  assert.equal(dc.energyFromGrid, null);
  assert.equal(dc.source, 'log');

  const one = await h.asDemo(`/api/charges/DEMO1/${ac.id}`);
  assert.equal(one.status, 200, one.body);
  const detail = body<Row & { samples: Record<string, unknown>[] }>(one);
  assert.deepEqual(Object.keys(detail), [...CHARGE_KEYS, 'samples']);
  assert.equal(detail.samples.length, 3);
  assert.deepEqual(Object.keys(detail.samples[0]!), ['t', 'soc', 'power', 'energy', 'grid']);
  assert.deepEqual(detail.samples[1], { t: now - 5 * DAY + 7200, soc: 55, power: 7.1, energy: 12.5, grid: 13.75 });
  assertSchema('ChargeDetail', detail);
  assertStatusError(await h.asDemo('/api/charges/DEMO1/999999'), 404, 'VTS_ERR_NOT_FOUND');
  assertStatusError(await h.asDemo(`/api/charges/DEMO1/${ac.id}/extra`), 404, 'VTS_ERR_NOT_FOUND');

  const csv = await h.asDemo(`/api/charges/DEMO1?format=csv&from=${now - 40 * DAY}`);
  assert.equal(csv.status, 200, csv.body);
  assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
  assert.match(String(csv.headers['content-disposition']), /^attachment; filename="charges-DEMO1-\d+-\d+\.csv"$/);
  const table = parseCsv(csv.body);
  assert.equal(table.length, 4, 'a header and three rows');
  const header = table[0]!;
  for (const column of ['id', 'start', 'energyAdded', 'kind']) assert.ok(header.includes(column), `a column ${column}: ${header.join()}`);
  assert.deepEqual(table.slice(1).map((row) => row[header.indexOf('kind')]), ['ac', 'ac', 'dc']);

  await otherOwner(h);
  assertStatusError(await h.asDemo('/api/charges/OTHER1'), 403, 'VTS_ERR_UNKNOWN_VEHICLE');
  assertStatusError(await asOther(h, `/api/charges/DEMO1/${ac.id}`), 403, 'VTS_ERR_UNKNOWN_VEHICLE');
});
