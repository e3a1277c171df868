/** checkPlace (src/core/drives/places.ts): a place from a request body, the first bad field named. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkPlace } from '../../../src/core/drives/places.js';

const good = { name: 'Home', lat: 52.52, lon: 13.405, radius: 150 };

function bad(body: unknown, field: string): void {
  const r = checkPlace(body);
  assert.equal(r.ok, false, JSON.stringify(body));
  if (!r.ok) {
    assert.equal(r.field, field, JSON.stringify(body));
    assert.ok(r.message.startsWith(field === 'body' ? 'the body' : field), r.message);
    assert.match(r.message, /must be/);
  }
}

test('defaults: UTC, EUR, prices 0, no windows; unknown keys ignored', () => {
  const r = checkPlace({ ...good, colour: 'red' });
  assert.deepEqual(r, {
    ok: true,
    place: { name: 'Home', lat: 52.52, lon: 13.405, radius: 150, timezone: 'UTC', currency: 'EUR', pricePerKwh: 0, pricePerMinute: 0, sessionFee: 0, timeOfUse: [] },
  });
});

test('every field given', () => {
  const body = {
    name: 'Supercharger A9',
    lat: -33.9,
    lon: 151.2,
    radius: 5000,
    timezone: 'Australia/Sydney',
    currency: 'AUD',
    pricePerKwh: 0.55,
    pricePerMinute: 0.1,
    sessionFee: 2,
    timeOfUse: [{ from: '22:00', to: '06:00', pricePerKwh: 0.12 }],
  };
  assert.deepEqual(checkPlace(body), { ok: true, place: body });
});

test('the body must be an object', () => {
  for (const b of [null, undefined, 'x', 3, [good]]) bad(b, 'body');
});

test('name: non-empty text of at most 100 characters', () => {
  bad({ ...good, name: undefined }, 'name');
  bad({ ...good, name: '' }, 'name');
  bad({ ...good, name: '   ' }, 'name');
  bad({ ...good, name: 42 }, 'name');
  bad({ ...good, name: 'x'.repeat(101) }, 'name');
  assert.equal(checkPlace({ ...good, name: 'x'.repeat(100) }).ok, true);
});

test('lat, lon: numbers in range, required', () => {
  bad({ ...good, lat: undefined }, 'lat');
  bad({ ...good, lat: 90.0001 }, 'lat');
  bad({ ...good, lat: '52.5' }, 'lat');
  bad({ ...good, lat: Number.NaN }, 'lat');
  bad({ ...good, lon: -180.5 }, 'lon');
  bad({ ...good, lon: Infinity }, 'lon');
  assert.equal(checkPlace({ ...good, lat: -90, lon: 180 }).ok, true);
});

test('radius: 10 to 5,000 m', () => {
  bad({ ...good, radius: undefined }, 'radius');
  bad({ ...good, radius: 9.99 }, 'radius');
  bad({ ...good, radius: 5001 }, 'radius');
  assert.equal(checkPlace({ ...good, radius: 10 }).ok, true);
  const r = checkPlace({ ...good, radius: 1 });
  assert.ok(!r.ok && /10/.test(r.message) && /5000/.test(r.message), 'the message says the range');
});

test('timezone: an IANA zone', () => {
  bad({ ...good, timezone: 'Mars/Base' }, 'timezone');
  bad({ ...good, timezone: '+02:00' }, 'timezone');
  bad({ ...good, timezone: 1 }, 'timezone');
  const r = checkPlace({ ...good, timezone: 'europe/berlin' });
  assert.ok(r.ok && r.place.timezone === 'Europe/Berlin');
});

test('currency: three capital letters', () => {
  bad({ ...good, currency: 'eur' }, 'currency');
  bad({ ...good, currency: 'EURO' }, 'currency');
  bad({ ...good, currency: '€' }, 'currency');
});

test('prices: finite and not negative', () => {
  for (const field of ['pricePerKwh', 'pricePerMinute', 'sessionFee']) {
    bad({ ...good, [field]: -0.01 }, field);
    bad({ ...good, [field]: '0.3' }, field);
    bad({ ...good, [field]: Infinity }, field);
    assert.equal(checkPlace({ ...good, [field]: 0 }).ok, true);
  }
});

test('timeOfUse: up to 24 windows of HH:MM and a price ≥ 0, the bad one named by its index', () => {
  const w = { from: '22:00', to: '06:00', pricePerKwh: 0.12 };
  bad({ ...good, timeOfUse: {} }, 'timeOfUse');
  bad({ ...good, timeOfUse: Array.from({ length: 25 }, () => w) }, 'timeOfUse');
  assert.equal(checkPlace({ ...good, timeOfUse: Array.from({ length: 24 }, () => w) }).ok, true);
  bad({ ...good, timeOfUse: [w, 'x'] }, 'timeOfUse[1]');
  bad({ ...good, timeOfUse: [{ ...w, from: '24:00' }] }, 'timeOfUse[0].from');
  bad({ ...good, timeOfUse: [{ ...w, from: '7:00' }] }, 'timeOfUse[0].from');
  bad({ ...good, timeOfUse: [w, { ...w, to: '06:60' }] }, 'timeOfUse[1].to');
  bad({ ...good, timeOfUse: [{ ...w, pricePerKwh: -1 }] }, 'timeOfUse[0].pricePerKwh');
  bad({ ...good, timeOfUse: [{ from: '22:00', to: '06:00' }] }, 'timeOfUse[0].pricePerKwh');
});

test('the first bad field in the documented order is named', () => {
  bad({ name: '', lat: 100, radius: 1 }, 'name');
  bad({ name: 'A', lat: 100, radius: 1 }, 'lat');
  bad({ ...good, radius: 1, currency: 'x' }, 'radius');
});
