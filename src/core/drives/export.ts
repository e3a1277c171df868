/**
 * Drives and charges as the web API shows them (JSON in the documented key order), as CSV and a
 * drive as GPX 1.1 (docs/web-api.md "Drives and charges").
 */
import type { ChargeSession, DriveSession, GeoPoint, PathPoint, Place } from './types.js';
import { driveEfficiency } from './battery.js';
import { CSV_EOL, csvField } from '../records/csv.js';

export interface PlaceRef extends GeoPoint {
  /** The place's name, null outside every place. */
  place: string | null;
}

export interface DriveJson {
  id: number;
  start: number;
  end: number | null;
  duration: number;
  units: 'K' | 'M';
  distance: number | null;
  startOdometer: number | null;
  endOdometer: number | null;
  socStart: number | null;
  socEnd: number | null;
  energyUsed: number | null;
  energyRecovered: number | null;
  efficiency: number | null;
  maxSpeed: number | null;
  from: PlaceRef | null;
  to: PlaceRef | null;
  source: 'live' | 'log';
  path?: PathPoint[];
}

export interface ChargeJson {
  id: number;
  start: number;
  end: number | null;
  duration: number;
  socStart: number | null;
  socEnd: number | null;
  energyAdded: number | null;
  energyFromGrid: number | null;
  maxPower: number | null;
  kind: 'ac' | 'dc' | null;
  at: PlaceRef | null;
  cost: number | null;
  currency: string | null;
  source: 'live' | 'log' | 'inferred';
}

function placeRef(point: GeoPoint | null, placeId: number | null, places: readonly Place[]): PlaceRef | null {
  if (point === null) return null;
  const name = placeId === null ? null : (places.find((p) => p.id === placeId)?.name ?? null);
  return { lat: point.lat, lon: point.lon, place: name };
}

function duration(start: number, end: number | null, now: number): number {
  return Math.max(0, (end ?? now) - start);
}

/**
 * A drive as the API lists it. `now` gives an open drive's duration so far. The place names come
 * from the drive's tagged place ids (tagSession). With `withPath` (the single-drive answer) the
 * route follows as `path`, points in time order; the list leaves it out.
 */
export function driveJson(d: DriveSession & { id: number }, places: readonly Place[], capacity: number | null, now: number, withPath = false): DriveJson {
  const out: DriveJson = {
    id: d.id,
    start: d.start,
    end: d.end,
    duration: duration(d.start, d.end, now),
    units: d.units,
    distance: d.distance,
    startOdometer: d.startOdometer,
    endOdometer: d.endOdometer,
    socStart: d.socStart,
    socEnd: d.socEnd,
    energyUsed: d.energyUsed,
    energyRecovered: d.energyRecovered,
    efficiency: driveEfficiency(d, capacity),
    maxSpeed: d.maxSpeed,
    from: placeRef(d.from, d.fromPlace, places),
    to: placeRef(d.to, d.toPlace, places),
    source: d.source,
  };
  if (withPath) out.path = [...d.path].sort((a, b) => a.t - b.t).map((p) => ({ t: p.t, lat: p.lat, lon: p.lon, speed: p.speed, soc: p.soc }));
  return out;
}

/** A charge as the API lists it; `now` gives an open charge's duration so far. */
export function chargeJson(c: ChargeSession & { id: number }, places: readonly Place[], now: number): ChargeJson {
  return {
    id: c.id,
    start: c.start,
    end: c.end,
    duration: duration(c.start, c.end, now),
    socStart: c.socStart,
    socEnd: c.socEnd,
    energyAdded: c.energyAdded,
    energyFromGrid: c.energyFromGrid,
    maxPower: c.maxPower,
    kind: c.chargeKind,
    at: placeRef(c.at, c.place, places),
    cost: c.cost,
    currency: c.currency,
    source: c.source,
  };
}

/**
 * A text cell that a spreadsheet would read as a formula (=, +, -, @, tab, CR first) gets a
 * leading apostrophe (CSV injection); numbers are written as they are.
 */
export function safeText(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

type Cell = string | number | null;

function line(cells: readonly Cell[]): string {
  return cells.map((c) => (c === null ? '' : csvField(c))).join(',') + CSV_EOL;
}

function refCells(r: PlaceRef | null): Cell[] {
  return r === null ? [null, null, null] : [r.lat, r.lon, r.place === null ? null : safeText(r.place)];
}

export const DRIVE_CSV_HEADER = [
  'id', 'start', 'end', 'duration', 'units', 'distance', 'startOdometer', 'endOdometer', 'socStart', 'socEnd',
  'energyUsed', 'energyRecovered', 'efficiency', 'maxSpeed', 'from_lat', 'from_lon', 'from_place', 'to_lat', 'to_lon', 'to_place', 'source',
] as const;

export const CHARGE_CSV_HEADER = [
  'id', 'start', 'end', 'duration', 'socStart', 'socEnd', 'energyAdded', 'energyFromGrid', 'maxPower', 'kind',
  'at_lat', 'at_lon', 'at_place', 'cost', 'currency', 'source',
] as const;

/** A header row (the JSON keys, `from`/`to` flattened) and one row per drive (RFC 4180, CRLF; null is an empty cell). */
export function drivesCsv(rows: readonly DriveJson[]): string {
  let out = line(DRIVE_CSV_HEADER);
  for (const d of rows) {
    out += line([
      d.id, d.start, d.end, d.duration, d.units, d.distance, d.startOdometer, d.endOdometer, d.socStart, d.socEnd,
      d.energyUsed, d.energyRecovered, d.efficiency, d.maxSpeed, ...refCells(d.from), ...refCells(d.to), d.source,
    ]);
  }
  return out;
}

/** A header row (the JSON keys, `at` flattened) and one row per charge. */
export function chargesCsv(rows: readonly ChargeJson[]): string {
  let out = line(CHARGE_CSV_HEADER);
  for (const c of rows) {
    out += line([
      c.id, c.start, c.end, c.duration, c.socStart, c.socEnd, c.energyAdded, c.energyFromGrid, c.maxPower, c.kind,
      ...refCells(c.at), c.cost, c.currency, c.source,
    ]);
  }
  return out;
}

/** Text for XML content and attribute values. */
export function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

function iso(t: number): string {
  return new Date(t * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

/** A coordinate as a plain decimal (GPX's xsd:decimal has no exponent), to 7 places (about 1 cm). */
function decimal(x: number): string {
  const text = x.toFixed(7).replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
}

/**
 * GPX 1.1: one track named `<vehicleId> <ISO start>` with one segment of the drive's path (the
 * `path` of the single-drive JSON; none gives an empty segment). Characters XML 1.0 cannot carry
 * are dropped from the name.
 */
export function driveGpx(d: DriveJson, vehicleId: string): string {
  // eslint-disable-next-line no-control-regex
  const name = xmlEscape(`${vehicleId} ${iso(d.start)}`.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, ''));
  const points = (d.path ?? [])
    .filter((p) => Number.isFinite(p.lat) && Number.isFinite(p.lon) && Number.isFinite(p.t))
    .map((p) => `      <trkpt lat="${decimal(p.lat)}" lon="${decimal(p.lon)}"><time>${iso(p.t)}</time></trkpt>\n`)
    .join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<gpx version="1.1" creator="vts" xmlns="http://www.topografix.com/GPX/1/1">\n' +
    '  <trk>\n' +
    `    <name>${name}</name>\n` +
    '    <trkseg>\n' +
    points +
    '    </trkseg>\n' +
    '  </trk>\n' +
    '</gpx>\n'
  );
}
