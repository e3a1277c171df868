/** Places (src/core/drives/places.ts): haversine distance, the place a point is in, tagging sessions. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { distanceMetres, placeAt, tagSession } from '../../../src/core/drives/places.js';
import { charge, drive, place } from './make.js';

test('distanceMetres: known distances (Berlin–Paris ≈ 878 km, a degree of latitude ≈ 111.2 km, 0 to itself)', () => {
  const berlin = { lat: 52.52, lon: 13.405 };
  const paris = { lat: 48.8566, lon: 2.3522 };
  assert.ok(Math.abs(distanceMetres(berlin, paris) - 877_500) < 1500, String(distanceMetres(berlin, paris)));
  assert.ok(Math.abs(distanceMetres({ lat: 0, lon: 0 }, { lat: 1, lon: 0 }) - 111_195) < 5);
  assert.equal(distanceMetres(berlin, berlin), 0);
  // across the antimeridian: short way round
  assert.ok(distanceMetres({ lat: 0, lon: 179.999 }, { lat: 0, lon: -179.999 }) < 250);
  // antipodes: half the circumference, no NaN
  assert.ok(Math.abs(distanceMetres({ lat: 0, lon: 0 }, { lat: 0, lon: 180 }) - Math.PI * 6_371_008.8) < 1);
});

test('property: distance is symmetric and non-negative', () => {
  const point = fc.record({ lat: fc.double({ min: -90, max: 90, noNaN: true }), lon: fc.double({ min: -180, max: 180, noNaN: true }) });
  fc.assert(
    fc.property(point, point, (a, b) => {
      const d = distanceMetres(a, b);
      assert.ok(d >= 0 && d <= Math.PI * 6_371_008.8 + 1);
      assert.ok(Math.abs(d - distanceMetres(b, a)) < 1e-6);
    }),
  );
});

test('placeAt: inside the radius, outside, the nearest centre of overlapping places, null point', () => {
  const home = place({ id: 1, name: 'Home', lat: 52.52, lon: 13.405, radius: 200 });
  const shop = place({ id: 2, name: 'Shop', lat: 52.521, lon: 13.405, radius: 200 }); // ≈ 111 m north
  const near = (dLatMetres: number) => ({ lat: 52.52 + dLatMetres / 111_195, lon: 13.405 });
  assert.equal(placeAt(near(0), [home])?.id, 1);
  assert.equal(placeAt(near(150), [home])?.id, 1);
  assert.equal(placeAt(near(250), [home]), null);
  assert.equal(placeAt(near(20), [home, shop])?.id, 1);
  assert.equal(placeAt(near(90), [home, shop])?.id, 2);
  assert.equal(placeAt(near(280), [home, shop])?.id, 2);
  assert.equal(placeAt(null, [home]), null);
  assert.equal(placeAt(near(0), []), null);
});

test('tagSession: a drive gets the ids of the places it starts and ends at', () => {
  const home = place({ id: 7, lat: 52.52, lon: 13.405 });
  const work = place({ id: 9, lat: 52.4, lon: 13.1 });
  const d = drive({ from: { lat: 52.52, lon: 13.405 }, to: { lat: 52.4, lon: 13.1 } });
  const tagged = tagSession(d, [home, work]);
  assert.equal(tagged.fromPlace, 7);
  assert.equal(tagged.toPlace, 9);
  assert.equal(d.fromPlace, null, 'the given session is left as it was');
  const away = tagSession(drive({ from: { lat: 10, lon: 10 }, to: null, fromPlace: 7, toPlace: 9 }), [home, work]);
  assert.equal(away.fromPlace, null);
  assert.equal(away.toPlace, null);
});

test('tagSession: a charge at a place gets its id, cost and currency; outside every place all three are null', () => {
  const home = place({ id: 3, currency: 'CHF', pricePerKwh: 0.3, sessionFee: 1 });
  const c = charge({ at: { lat: 52.52, lon: 13.405 }, energyAdded: 10, energyFromGrid: 11 });
  const tagged = tagSession(c, [home]);
  assert.equal(tagged.place, 3);
  assert.equal(tagged.cost, 4.3); // 11 kWh from the grid × 0.30 + 1
  assert.equal(tagged.currency, 'CHF');
  const away = tagSession({ ...tagged, at: { lat: 0, lon: 0 } }, [home]);
  assert.deepEqual([away.place, away.cost, away.currency], [null, null, null]);
  const nowhere = tagSession({ ...tagged, at: null }, [home]);
  assert.deepEqual([nowhere.place, nowhere.cost, nowhere.currency], [null, null, null]);
});
