/**
 * Shared by the tests of the drives, charges, places, battery and stats calls: sessions to seed
 * through the store (`store.drives.replaceSessions`), a second owner with a vehicle, a web
 * session, and bodies checked against the OpenAPI document's component schemas.
 */
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { ChargeSession, DriveSession, Session } from '../../../src/core/drives/types.js';
import { buildOpenApiDocument } from '../../../src/http/openapi/document.js';
import type { HttpHarness, HttpResponse } from '../helpers.js';

export const DRIVE_KEYS = [
  'id', 'start', 'end', 'duration', 'units', 'distance', 'startOdometer', 'endOdometer', 'socStart', 'socEnd',
  'energyUsed', 'energyRecovered', 'efficiency', 'maxSpeed', 'from', 'to', 'source',
];
export const CHARGE_KEYS = [
  'id', 'start', 'end', 'duration', 'socStart', 'socEnd', 'energyAdded', 'energyFromGrid', 'maxPower', 'kind', 'at', 'cost', 'currency', 'source',
];
export const PLACE_KEYS = ['id', 'name', 'lat', 'lon', 'radius', 'timezone', 'currency', 'pricePerKwh', 'pricePerMinute', 'sessionFee', 'timeOfUse'];
export const STATS_KEYS = ['start', 'distance', 'drives', 'energyUsed', 'charges', 'energyAdded', 'energyFromGrid', 'cost', 'currency', 'efficiency', 'vampireDrain'];

export const HOME = { lat: 48.1, lon: 11.5 };
export const WORK = { lat: 48.2, lon: 11.7 };

/** A finished 25 km drive from HOME to WORK starting at `start`, 30 minutes long, with a 3-point route. */
export function drive(start: number, over: Partial<DriveSession> = {}): DriveSession {
  const end = start + 1800;
  return {
    session: 'drive',
    key: `live:${start}`,
    start,
    end,
    soh: 97,
    units: 'K',
    startOdometer: 10_000,
    endOdometer: 10_025,
    distance: 25,
    socStart: 80,
    socEnd: 74,
    energyUsed: 4,
    energyRecovered: 0.5,
    maxSpeed: 92,
    from: { ...HOME },
    to: { ...WORK },
    fromPlace: null,
    toPlace: null,
    source: 'live',
    path: [
      { t: start, lat: HOME.lat, lon: HOME.lon, speed: 0, soc: 80 },
      { t: start + 900, lat: 48.15, lon: 11.6, speed: 88, soc: 77 },
      { t: end, lat: WORK.lat, lon: WORK.lon, speed: 0, soc: 74 },
    ],
    ...over,
  };
}

/** A finished AC charge at HOME from 30 % to 80 % (25 kWh into the battery, 27.5 from the grid), 4 hours. */
export function charge(start: number, over: Partial<ChargeSession> = {}): ChargeSession {
  const end = start + 4 * 3600;
  return {
    session: 'charge',
    key: `live:${start}`,
    start,
    end,
    soh: 97,
    socStart: 30,
    socEnd: 80,
    energyAdded: 25,
    energyFromGrid: 27.5,
    maxPower: 7.2,
    chargeKind: 'ac',
    at: { ...HOME },
    place: null,
    cost: null,
    currency: null,
    source: 'live',
    samples: [
      { t: start, soc: 30, power: 7.2, energy: 0, grid: 0 },
      { t: start + 2 * 3600, soc: 55, power: 7.1, energy: 12.5, grid: 13.75 },
      { t: end, soc: 80, power: 0, energy: 25, grid: 27.5 },
    ],
    ...over,
  };
}

export async function seed(h: HttpHarness, vehicleId: string, sessions: readonly Session[]): Promise<void> {
  await h.t.server.store.drives.replaceSessions(vehicleId, sessions, '{}');
}

/** A second owner, `other`, with the vehicle OTHER1. */
export async function otherOwner(h: HttpHarness): Promise<void> {
  const id = await h.t.addUser('other', 'otherpass');
  await h.t.addVehicle('OTHER1', id, 'NETPASS');
}

export const asOther = (h: HttpHarness, path: string, opts?: Parameters<HttpHarness['request']>[1]) =>
  h.request(`${path}${path.includes('?') ? '&' : '?'}username=other&password=otherpass`, opts);

export const body = <T = unknown>(r: HttpResponse): T => JSON.parse(r.body) as T;

/** A 400 `VTS_ERR_INVALID_INPUT` whose message starts with the field's name. */
export function assertBadField(r: HttpResponse, field: string): void {
  assert.equal(r.status, 400, r.body);
  const b = body<{ error: string; message: string }>(r);
  assert.equal(b.error, 'VTS_ERR_INVALID_INPUT');
  assert.ok(b.message.startsWith(`${field}`), `the message names ${field}: ${b.message}`);
}

export function assertStatusError(r: HttpResponse, status: number, code: string): void {
  assert.equal(r.status, status, r.body);
  assert.equal(body<{ error: string }>(r).error, code);
}

const DOC_ID = 'vts-openapi';
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(buildOpenApiDocument() as unknown as Record<string, unknown>, DOC_ID);
const validators = new Map<string, ValidateFunction>();

/** The value against a component schema of the OpenAPI document (`Drive`, `Place`, …). */
export function assertSchema(name: string, value: unknown): void {
  let v = validators.get(name);
  if (!v) {
    v = ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${name}` });
    validators.set(name, v);
  }
  assert.ok(v(value), `${name}: ${JSON.stringify(v.errors)} in ${JSON.stringify(value).slice(0, 400)}`);
}

/** RFC 4180 text back into rows of fields. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    }
    else if (c === '\r' || c === '\n') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}
