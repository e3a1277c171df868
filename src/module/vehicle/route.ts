/**
 * A closed driving route around a home position: the emulated car drives along it, so positions,
 * headings, odometer and trip are consistent with each other. Pure geometry, no I/O.
 */
import type { Random } from './random.js';

export interface Point {
  lat: number;
  lon: number;
}

const EARTH_RADIUS_KM = 6371;
const rad = (d: number) => (d * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;

/** Great-circle distance in km. */
export function distanceKm(a: Point, b: Point): number {
  const dLat = rad(b.lat - a.lat);
  const dLon = rad(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Initial bearing from a to b in degrees (0 = north, clockwise). */
export function bearing(a: Point, b: Point): number {
  const y = Math.sin(rad(b.lon - a.lon)) * Math.cos(rad(b.lat));
  const x = Math.cos(rad(a.lat)) * Math.sin(rad(b.lat)) - Math.sin(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.cos(rad(b.lon - a.lon));
  return (deg(Math.atan2(y, x)) + 360) % 360;
}

export class Route {
  private readonly legs: number[];
  readonly lengthKm: number;

  constructor(readonly points: readonly Point[]) {
    if (points.length < 2) throw new Error('a route needs two points');
    this.legs = points.map((p, i) => distanceKm(p, points[(i + 1) % points.length]!));
    this.lengthKm = this.legs.reduce((a, b) => a + b, 0);
  }

  /** A loop of `n` waypoints within about `radiusKm` of home (home is the first point). */
  static around(home: Point, rng: Random, n = 8, radiusKm = 15): Route {
    const points: Point[] = [home];
    for (let i = 1; i < n; i++) {
      const angle = (2 * Math.PI * i) / n + rng.range(-0.3, 0.3);
      const r = radiusKm * rng.range(0.4, 1);
      points.push({
        lat: home.lat + (r / 111.32) * Math.cos(angle),
        lon: home.lon + (r / (111.32 * Math.cos(rad(home.lat)))) * Math.sin(angle),
      });
    }
    return new Route(points);
  }

  /** Position and heading at `km` along the loop (wrapping around). */
  at(km: number): { point: Point; heading: number } {
    let rest = ((km % this.lengthKm) + this.lengthKm) % this.lengthKm;
    for (let i = 0; i < this.legs.length; i++) {
      const leg = this.legs[i]!;
      const a = this.points[i]!;
      const b = this.points[(i + 1) % this.points.length]!;
      if (rest <= leg || i === this.legs.length - 1) {
        const f = leg === 0 ? 0 : Math.min(1, rest / leg);
        return { point: { lat: a.lat + (b.lat - a.lat) * f, lon: a.lon + (b.lon - a.lon) * f }, heading: bearing(a, b) };
      }
      rest -= leg;
    }
    return { point: this.points[0]!, heading: 0 };
  }
}
