/**
 * `GET|POST /api/places`, `PUT|DELETE /api/places/<id>` on a real server and store
 * (docs/web-api.md "Places"): the documented key order, 400s that name the field, 404 for another
 * owner's or a removed place, CSRF for a web session, and every change re-tagging and re-pricing
 * the owner's earlier sessions (and no other owner's).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpHarness, type HttpHarness } from '../helpers.js';
import { asOther, assertBadField, assertSchema, assertStatusError, body, charge, drive, HOME, otherOwner, PLACE_KEYS, seed, WORK } from './sessions-helpers.js';

const DAY = 86_400;

type Row = Record<string, unknown> & { id: number };

const jsonBody = (method: string, value: unknown, headers: Record<string, string> = {}) => ({
  method,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
});

const HOME_PLACE = { name: 'Home', lat: HOME.lat, lon: HOME.lon, radius: 100, timezone: 'Europe/Berlin', currency: 'EUR', pricePerKwh: 0.3, pricePerMinute: 0, sessionFee: 0, timeOfUse: [] };

async function charges(h: HttpHarness, vehicle = 'DEMO1', as = h.asDemo): Promise<Row[]> {
  const r = await as(`/api/charges/${vehicle}`);
  assert.equal(r.status, 200, r.body);
  return body<Row[]>(r);
}

test('places: create, list, change, remove, in the documented key order; 404 for unknown and others\' places', async (t) => {
  const h = await httpHarness(t);
  assert.deepEqual(body((await h.asDemo('/api/places'))), []);
  const created = await h.asDemo('/api/places', jsonBody('POST', { ...HOME_PLACE, timeOfUse: [{ from: '22:00', to: '06:00', pricePerKwh: 0.12 }] }));
  assert.equal(created.status, 201, created.body);
  assert.equal(created.headers['content-type'], 'application/json');
  const place = body<Row>(created);
  assert.deepEqual(Object.keys(place), PLACE_KEYS);
  assert.ok(Number.isInteger(place.id) && place.id > 0);
  assert.deepEqual({ ...place, id: 0 }, { id: 0, ...HOME_PLACE, timeOfUse: [{ from: '22:00', to: '06:00', pricePerKwh: 0.12 }] }, 'the numbers as sent');
  assertSchema('Place', place);

  // the defaults: UTC, EUR, free, no windows
  const work = body<Row>(await h.asDemo('/api/places', jsonBody('POST', { name: 'Work', lat: WORK.lat, lon: WORK.lon, radius: 200 })));
  assert.equal(work.timezone, 'UTC');
  assert.equal(work.currency, 'EUR');
  assert.deepEqual([work.pricePerKwh, work.pricePerMinute, work.sessionFee, work.timeOfUse], [0, 0, 0, []]);

  const list = body<Row[]>(await h.asDemo('/api/places'));
  assert.deepEqual(list.map((p) => p.name), ['Home', 'Work'], 'ordered by id');
  for (const p of list) assert.deepEqual(Object.keys(p), PLACE_KEYS);

  const changed = await h.asDemo(`/api/places/${place.id}`, jsonBody('PUT', { ...HOME_PLACE, name: 'Home (new)', radius: 250 }));
  assert.equal(changed.status, 200, changed.body);
  assert.deepEqual(body(changed), { id: place.id, ...HOME_PLACE, name: 'Home (new)', radius: 250 });

  // another owner sees none of them and cannot change or remove them
  await otherOwner(h);
  assert.deepEqual(body(await asOther(h, '/api/places')), []);
  assertStatusError(await asOther(h, `/api/places/${place.id}`, jsonBody('PUT', HOME_PLACE)), 404, 'VTS_ERR_NOT_FOUND');
  assertStatusError(await asOther(h, `/api/places/${place.id}`, { method: 'DELETE' }), 404, 'VTS_ERR_NOT_FOUND');

  assert.equal((await h.asDemo(`/api/places/${place.id}`, { method: 'DELETE' })).status, 204);
  assertStatusError(await h.asDemo(`/api/places/${place.id}`, { method: 'DELETE' }), 404, 'VTS_ERR_NOT_FOUND');
  assertStatusError(await h.asDemo(`/api/places/${place.id}`, jsonBody('PUT', HOME_PLACE)), 404, 'VTS_ERR_NOT_FOUND');
  for (const id of ['999999', 'abc', '0']) {
    assertStatusError(await h.asDemo(`/api/places/${id}`, { method: 'DELETE' }), 404, 'VTS_ERR_NOT_FOUND');
    assertStatusError(await h.asDemo(`/api/places/${id}`, jsonBody('PUT', HOME_PLACE)), 404, 'VTS_ERR_NOT_FOUND');
  }
  assert.deepEqual(body<Row[]>(await h.asDemo('/api/places')).map((p) => p.name), ['Work']);
});

test('places: bad values are 400s that name the field', async (t) => {
  const h = await httpHarness(t);
  const post = (value: unknown) => h.asDemo('/api/places', jsonBody('POST', value));
  assertBadField(await post({ ...HOME_PLACE, radius: 5 }), 'radius');
  assertBadField(await post({ ...HOME_PLACE, radius: 5001 }), 'radius');
  assertBadField(await post({ ...HOME_PLACE, lat: 'north' }), 'lat');
  assertBadField(await post({ ...HOME_PLACE, name: undefined }), 'name');
  assertBadField(await post({ ...HOME_PLACE, timezone: 'Mars/Olympus' }), 'timezone');
  assertBadField(await post({ ...HOME_PLACE, pricePerKwh: -1 }), 'pricePerKwh');
  assertBadField(await post({ ...HOME_PLACE, timeOfUse: [{ from: '25:00', to: '06:00', pricePerKwh: 0.1 }] }), 'timeOfUse');
  // no JSON body at all: the missing name
  assertBadField(await h.asDemo('/api/places', { method: 'POST' }), 'name');
  const put = await h.asDemo('/api/places', jsonBody('POST', HOME_PLACE));
  assertBadField(await h.asDemo(`/api/places/${body<Row>(put).id}`, jsonBody('PUT', { ...HOME_PLACE, radius: 0 })), 'radius');
  assert.deepEqual(body<Row[]>(await h.asDemo('/api/places')).length, 1, 'nothing stored by a refused request');
});

test('places: a web session needs its CSRF token to change places', async (t) => {
  const h = await httpHarness(t);
  const s = await h.request('/api/session', jsonBody('POST', { username: 'demo', password: 'demopass' }));
  const cookie = s.headers['set-cookie']![0]!.split(';', 1)[0]!;
  const csrf = body<{ csrf: string }>(s).csrf;
  assertStatusError(await h.request('/api/places', jsonBody('POST', HOME_PLACE, { cookie })), 403, 'VTS_ERR_CSRF');
  const ok = await h.request('/api/places', jsonBody('POST', HOME_PLACE, { cookie, 'x-csrf-token': csrf }));
  assert.equal(ok.status, 201, ok.body);
  assert.equal((await h.request('/api/places', { headers: { cookie } })).status, 200, 'reading needs no token');
});

test('places: creating, changing and removing a place re-tags and re-prices the earlier sessions of every vehicle of the owner', async (t) => {
  const h = await httpHarness(t);
  const now = Math.floor(Date.now() / 1000);
  await seed(h, 'DEMO1', [drive(now - 3 * DAY), charge(now - 2 * DAY)]);
  await seed(h, 'TESTCAR', [charge(now - DAY, { energyFromGrid: 10, energyAdded: 9 })]);
  await otherOwner(h);
  await seed(h, 'OTHER1', [charge(now - DAY)]);
  assert.equal((await charges(h))[0]!.cost, null);

  const home = body<Row>(await h.asDemo('/api/places', jsonBody('POST', HOME_PLACE)));
  const [c] = await charges(h);
  assert.deepEqual(c!.at, { lat: HOME.lat, lon: HOME.lon, place: 'Home' }, 'the earlier charge is at Home now');
  assert.ok(Math.abs((c!.cost as number) - 27.5 * 0.3) < 1e-6, `grid energy × price: ${String(c!.cost)}`);
  assert.equal(c!.currency, 'EUR');
  const [other] = await charges(h, 'TESTCAR');
  assert.ok(Math.abs((other!.cost as number) - 10 * 0.3) < 1e-6, `the owner's other vehicle too: ${String(other!.cost)}`);
  const [d] = body<Row[]>(await h.asDemo('/api/drives/DEMO1'));
  assert.deepEqual(d!.from, { lat: HOME.lat, lon: HOME.lon, place: 'Home' }, 'the drive starts at Home');
  assert.deepEqual(d!.to, { lat: 48.2, lon: 11.7, place: null });
  const [foreign] = await charges(h, 'OTHER1', (p) => asOther(h, p));
  assert.equal(foreign!.cost, null, "another owner's sessions are not his places'");
  assert.equal((foreign!.at as { place: unknown }).place, null);

  // a new price, a fee and a per-minute price: priced again
  await h.asDemo(`/api/places/${home.id}`, jsonBody('PUT', { ...HOME_PLACE, currency: 'CHF', pricePerKwh: 0.2, sessionFee: 1, pricePerMinute: 0.01 }));
  const [again] = await charges(h);
  assert.ok(Math.abs((again!.cost as number) - (27.5 * 0.2 + 240 * 0.01 + 1)) < 1e-6, `energy, minutes and fee: ${String(again!.cost)}`);
  assert.equal(again!.currency, 'CHF');

  // a drive's end in a new place
  await h.asDemo('/api/places', jsonBody('POST', { name: 'Work', lat: WORK.lat, lon: WORK.lon, radius: 100 }));
  assert.equal((body<Row[]>(await h.asDemo('/api/drives/DEMO1'))[0]!.to as { place: unknown }).place, 'Work');

  // removed: no place, no cost
  assert.equal((await h.asDemo(`/api/places/${home.id}`, { method: 'DELETE' })).status, 204);
  const [gone] = await charges(h);
  assert.equal((gone!.at as { place: unknown }).place, null);
  assert.equal(gone!.cost, null);
  assert.equal((body<Row[]>(await h.asDemo('/api/drives/DEMO1'))[0]!.from as { place: unknown }).place, null);
});
