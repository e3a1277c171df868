/**
 * Places: which of an owner's places a point is in, validating a place as its owner sends it, and
 * tagging sessions with their places and prices (docs/web-api.md "Places").
 */
import type { ChargeSession, DriveSession, GeoPoint, Place, PlaceInput, Session, TariffWindow } from './types.js';
import { chargeCost } from './cost.js';
import { parseHhmm } from './tariff.js';
import { canonicalZone } from './zoned-time.js';
import { BadField, isRecord } from '../body-check.js';

/** The mean Earth radius (IUGG), metres. */
const EARTH_RADIUS = 6_371_008.8;

/** Great-circle distance in metres (haversine). */
export function distanceMetres(a: GeoPoint, b: GeoPoint): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The place whose circle holds the point (the nearest centre when several do; the lower id on a tie); null when none. */
export function placeAt(point: GeoPoint | null, places: readonly Place[]): Place | null {
  if (point === null || !Number.isFinite(point.lat) || !Number.isFinite(point.lon)) return null;
  let best: Place | null = null;
  let bestDistance = Infinity;
  for (const p of places) {
    const d = distanceMetres(point, p);
    if (d > p.radius) continue;
    if (d < bestDistance || (d === bestDistance && best !== null && p.id < best.id)) {
      best = p;
      bestDistance = d;
    }
  }
  return best;
}

export type PlaceCheck = { ok: true; place: PlaceInput } | { ok: false; field: string; message: string };

export const PLACE_LIMITS = {
  nameLength: 100,
  radiusMin: 10,
  radiusMax: 5000,
  windows: 24,
} as const;

function number(body: Record<string, unknown>, field: string, min: number, max: number, fallback: number | null, expected: string): number {
  const v = body[field];
  if (v === undefined && fallback !== null) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw new BadField(field, `${field} must be ${expected}`);
  return v;
}

function price(body: Record<string, unknown>, field: string): number {
  return number(body, field, 0, Number.MAX_VALUE, 0, 'a number ≥ 0');
}

function windows(v: unknown): TariffWindow[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > PLACE_LIMITS.windows)
    throw new BadField('timeOfUse', `timeOfUse must be a list of at most ${PLACE_LIMITS.windows} windows {"from":"HH:MM","to":"HH:MM","pricePerKwh":≥ 0}`);
  return v.map((w: unknown, i) => {
    const at = `timeOfUse[${i}]`;
    if (!isRecord(w)) throw new BadField(at, `${at} must be an object {"from":"HH:MM","to":"HH:MM","pricePerKwh":≥ 0}`);
    for (const edge of ['from', 'to'] as const) {
      const text = w[edge];
      if (typeof text !== 'string' || parseHhmm(text) === null) throw new BadField(`${at}.${edge}`, `${at}.${edge} must be a time HH:MM (00:00–23:59)`);
    }
    const p = w.pricePerKwh;
    if (typeof p !== 'number' || !Number.isFinite(p) || p < 0) throw new BadField(`${at}.pricePerKwh`, `${at}.pricePerKwh must be a number ≥ 0`);
    return { from: w.from as string, to: w.to as string, pricePerKwh: p };
  });
}

function check(body: unknown): PlaceInput {
  if (!isRecord(body)) throw new BadField('body', 'the body must be a JSON object');
  const name = body.name;
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > PLACE_LIMITS.nameLength)
    throw new BadField('name', `name must be a non-empty text of at most ${PLACE_LIMITS.nameLength} characters`);
  const lat = number(body, 'lat', -90, 90, null, 'a latitude from -90 to 90');
  const lon = number(body, 'lon', -180, 180, null, 'a longitude from -180 to 180');
  const radius = number(body, 'radius', PLACE_LIMITS.radiusMin, PLACE_LIMITS.radiusMax, null, `a radius in metres from ${PLACE_LIMITS.radiusMin} to ${PLACE_LIMITS.radiusMax}`);
  let timezone = 'UTC';
  if (body.timezone !== undefined) {
    const zone = typeof body.timezone === 'string' ? canonicalZone(body.timezone) : null;
    if (zone === null) throw new BadField('timezone', 'timezone must be an IANA time zone such as Europe/Berlin');
    timezone = zone;
  }
  let currency = 'EUR';
  if (body.currency !== undefined) {
    if (typeof body.currency !== 'string' || !/^[A-Z]{3}$/.test(body.currency)) throw new BadField('currency', 'currency must be a 3-letter ISO 4217 code such as EUR');
    currency = body.currency;
  }
  const pricePerKwh = price(body, 'pricePerKwh');
  const pricePerMinute = price(body, 'pricePerMinute');
  const sessionFee = price(body, 'sessionFee');
  const timeOfUse = windows(body.timeOfUse);
  return { name, lat, lon, radius, timezone, currency, pricePerKwh, pricePerMinute, sessionFee, timeOfUse };
}

/**
 * A place from a request body: names the first bad field (`radius` outside 10–5,000 m, an unknown
 * time zone, a window not `HH:MM`, a negative price, …) and says what it must be. Defaults:
 * timezone UTC, currency EUR, prices 0, no windows. Unknown keys are ignored. The zone is kept
 * under its canonical name.
 */
export function checkPlace(body: unknown): PlaceCheck {
  try {
    return { ok: true, place: check(body) };
  } catch (e) {
    if (e instanceof BadField) return { ok: false, field: e.field, message: e.message };
    throw e;
  }
}

function tagDrive(d: DriveSession, places: readonly Place[]): DriveSession {
  return { ...d, fromPlace: placeAt(d.from, places)?.id ?? null, toPlace: placeAt(d.to, places)?.id ?? null };
}

function tagCharge(c: ChargeSession, places: readonly Place[]): ChargeSession {
  const place = placeAt(c.at, places);
  if (place === null) return { ...c, place: null, cost: null, currency: null };
  return { ...c, place: place.id, cost: chargeCost(c, place), currency: place.currency };
}

/**
 * The session with its place fields (and, for a charge, its cost and currency) set from `places`;
 * a new object, the given one is left as it was.
 */
export function tagSession<S extends Session>(session: S, places: readonly Place[]): S {
  if (session.session === 'drive') return tagDrive(session, places) as S;
  return tagCharge(session, places) as S;
}
