/**
 * The places and roads of the simulated day (simulated-day.ts): home, work and a fast charger on
 * the motorway, laid out around the car's home as straight-ish polylines, each leg with a road
 * class that sets the speed driven on it. Pure geometry, no I/O.
 */
import { bearing, distanceKm, type Point } from './route.js';

/** City streets (with lights), arterial roads, motorway. */
export type RoadClass = 'city' | 'arterial' | 'motorway';

/** Speed aimed at on each class of road (km/h), before the driver's own variation. */
export const ROAD_SPEED: Readonly<Record<RoadClass, number>> = { city: 36, arterial: 62, motorway: 118 };

export interface Place {
  /** As the firmware's location name (no comma). */
  name: string;
  point: Point;
}

/** One leg of a road: to `to`, on a road of class `road`. */
interface Leg {
  from: Point;
  to: Point;
  road: RoadClass;
  km: number;
}

/** A drive's road from one place to another, as legs. */
export class Road {
  readonly legs: readonly Leg[];
  readonly lengthKm: number;

  constructor(
    readonly from: Place,
    readonly to: Place,
    legs: Leg[],
  ) {
    this.legs = legs;
    this.lengthKm = legs.reduce((s, l) => s + l.km, 0);
  }

  /** Position, heading and road class at `km` along the road (clamped to its ends). */
  at(km: number): { point: Point; heading: number; road: RoadClass } {
    let rest = Math.max(0, km);
    for (const leg of this.legs) {
      if (rest <= leg.km || leg === this.legs[this.legs.length - 1]) {
        const f = leg.km === 0 ? 1 : Math.min(1, rest / leg.km);
        const point = { lat: leg.from.lat + (leg.to.lat - leg.from.lat) * f, lon: leg.from.lon + (leg.to.lon - leg.from.lon) * f };
        return { point, heading: bearing(leg.from, leg.to), road: leg.road };
      }
      rest -= leg.km;
    }
    return { point: this.to.point, heading: 0, road: 'city' };
  }
}

/** A point `north` and `east` km from `home`. */
function offset(home: Point, north: number, east: number): Point {
  return {
    lat: home.lat + north / 111.32,
    lon: home.lon + east / (111.32 * Math.cos((home.lat * Math.PI) / 180)),
  };
}

type Waypoint = readonly [north: number, east: number, road: RoadClass];

function road(home: Point, from: Place, to: Place, waypoints: readonly Waypoint[]): Road {
  const legs: Leg[] = [];
  let at = from.point;
  for (const [n, e, cls] of waypoints) {
    const next = offset(home, n, e);
    legs.push({ from: at, to: next, road: cls, km: distanceKm(at, next) });
    at = next;
  }
  return new Road(from, to, legs);
}

export interface DayGeography {
  home: Place;
  work: Place;
  charger: Place;
  /** Home → work in the morning (about 25 km through town and a stretch of motorway). */
  toWork: Road;
  /** Work → the fast charger (about 60 km, mostly motorway). */
  toCharger: Road;
  /** The charger → home in the evening. */
  chargerHome: Road;
}

/** The day's places and roads around `home`. */
export function dayGeography(homePoint: Point): DayGeography {
  const home = { name: 'home', point: homePoint };
  const work = { name: 'work', point: offset(homePoint, 18.2, 14.6) };
  const charger = { name: 'motorway fast charger', point: offset(homePoint, 67, 37.2) };
  const toWork = road(homePoint, home, work, [
    [0.8, 0.6, 'city'],
    [1.6, 1.9, 'city'],
    [2.6, 2.4, 'city'],
    [3.4, 3.6, 'city'],
    [5, 4.5, 'arterial'],
    [9, 7, 'arterial'],
    [15, 10.5, 'motorway'],
    [17, 12.8, 'arterial'],
    [17.8, 13.6, 'city'],
    [18.6, 14.1, 'city'],
    [18.2, 14.6, 'city'],
  ]);
  const toCharger = road(homePoint, work, charger, [
    [19.5, 15.5, 'city'],
    [21, 17.5, 'arterial'],
    [30, 24, 'motorway'],
    [42, 29, 'motorway'],
    [55, 31, 'motorway'],
    [66, 36, 'motorway'],
    [67, 37.2, 'city'],
  ]);
  const chargerHome = road(homePoint, charger, home, [
    [66, 36, 'city'],
    [50, 28, 'motorway'],
    [30, 16, 'motorway'],
    [12, 5, 'motorway'],
    [5, 2, 'arterial'],
    [2.6, 1.2, 'city'],
    [0.8, 0.2, 'city'],
    [0, 0, 'city'],
  ]);
  return { home, work, charger, toWork, toCharger, chargerHome };
}
