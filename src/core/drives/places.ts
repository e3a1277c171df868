/**
 * Places: which of an owner's places a point is in, validating a place as its owner sends it, and
 * tagging sessions with their places and prices (docs/web-api.md "Places").
 *
 * (Contract stub: implemented by the places-and-cost change.)
 */
import type { GeoPoint, Place, PlaceInput, Session } from './types.js';

/** Great-circle distance in metres. */
export function distanceMetres(a: GeoPoint, b: GeoPoint): number {
  void a;
  void b;
  return 0;
}

/** The place whose circle holds the point (the nearest centre when several do); null when none. */
export function placeAt(point: GeoPoint | null, places: readonly Place[]): Place | null {
  void point;
  void places;
  return null;
}

export type PlaceCheck = { ok: true; place: PlaceInput } | { ok: false; field: string; message: string };

/**
 * A place from a request body: names the first bad field (`radius` outside 10–5,000 m, an unknown
 * time zone, a window not `HH:MM`, a negative price, …). Defaults: timezone UTC, currency EUR,
 * prices 0, no windows.
 */
export function checkPlace(body: unknown): PlaceCheck {
  void body;
  return { ok: false, field: 'name', message: 'not implemented' };
}

/** The session with its place fields (and, for a charge, its cost and currency) set from `places`. */
export function tagSession<S extends Session>(session: S, places: readonly Place[]): S {
  void places;
  return session;
}
