/**
 * The telemetry (`tlm`) vts sends to ABRP (A Better Route Planner, docs/abrp.md) for a linked
 * vehicle, made from the car's latest `S`, `D` and `L` records (docs/protocol/messages.md
 * §3.1–3.3). The fields and their meaning follow what the OVMS v3 module's ABRP plugin sends
 * (metric units: km, km/h, kW, kWh, °C, V, A; power negative while charging). A field the records
 * do not give is left out, never null: ABRP does not take nulls.
 *
 * Distances and the `L` speed are in the car's distance unit (`S` field 2, `K` or `M`); they are
 * converted to km. The `D` speed is km/h as the v3 firmware sends it; it is used only when the `L`
 * record has none.
 */
import { numberAt } from '../records/fields.js';
import { CHARGING_STATES, isDcText, pickFields, position } from '../drives/log-fields.js';

export interface AbrpTlm {
  /** Epoch seconds of the data. */
  utc: number;
  soc?: number;
  /** kW, negative while charging. */
  power?: number;
  /** km/h. */
  speed?: number;
  lat?: number;
  lon?: number;
  is_charging?: boolean;
  is_dcfc?: boolean;
  is_parked?: boolean;
  /** kWh charged in the running charge (0 when not charging). */
  kwh_charged?: number;
  soh?: number;
  heading?: number;
  elevation?: number;
  ext_temp?: number;
  batt_temp?: number;
  voltage?: number;
  current?: number;
  /** km. */
  odometer?: number;
  /** km. */
  est_battery_range?: number;
}

/** Every field ABRP may get from vts, in the order they are sent. */
export const TLM_FIELDS = [
  'utc',
  'soc',
  'power',
  'speed',
  'lat',
  'lon',
  'is_charging',
  'is_dcfc',
  'is_parked',
  'kwh_charged',
  'soh',
  'heading',
  'elevation',
  'ext_temp',
  'batt_temp',
  'voltage',
  'current',
  'odometer',
  'est_battery_range',
] as const satisfies readonly (keyof AbrpTlm)[];

/** The latest record text of each live type (without its code), as the car sent it. */
export interface LatestRecords {
  s?: string;
  d?: string;
  l?: string;
}

/** A charge above this (kW) is a DC fast charge, whatever the mode says (no AC charger gives more). */
export const DC_POWER_KW = 22;

const KM_PER_MILE = 1.609344;

const S_WANTED = [1, 2, 5, 6, 7, 12, 32, 33, 34, 35, 37] as const;
const D_WANTED = [6, 8, 9, 10, 11, 13, 14] as const;
const L_WANTED = [1, 2, 3, 4, 7, 10] as const;

const round = (n: number, digits: number): number => {
  const f = 10 ** digits;
  const r = Math.round(n * f) / f;
  return Object.is(r, -0) ? 0 : r;
};

/** Sets `tlm[key]` to `value` rounded when it is a finite number; leaves it out otherwise. */
function put(tlm: AbrpTlm, key: Exclude<keyof AbrpTlm, 'utc' | 'is_charging' | 'is_dcfc' | 'is_parked'>, value: number | null, digits: number): void {
  if (value === null) return;
  const r = round(value, digits);
  if (Number.isFinite(r)) tlm[key] = r;
}

/** Text of a picked field, trimmed and lower case; null when absent or empty. */
function text(f: readonly (string | undefined)[], i: number): string | null {
  const t = f[i];
  return t === undefined || t.trim() === '' ? null : t.trim().toLowerCase();
}

/** The telemetry of the latest records, its data time `utc`. */
export function buildTlm(latest: LatestRecords, utc: number): AbrpTlm {
  const tlm: AbrpTlm = { utc: Math.floor(utc) };
  const s = latest.s === undefined ? [] : pickFields(latest.s, S_WANTED);
  const d = latest.d === undefined ? [] : pickFields(latest.d, D_WANTED);
  const l = latest.l === undefined ? [] : pickFields(latest.l, L_WANTED);
  const km = text(s, 1) === 'm' ? KM_PER_MILE : 1;

  // S: the battery and the charge
  const soc = numberAt(s, 0);
  if (soc !== null && soc >= 0 && soc <= 100) put(tlm, 'soc', soc, 1);
  const state = text(s, 2);
  const charging = state === null ? null : CHARGING_STATES.has(state);
  const outputKw = numberAt(s, 6);
  const inputKw = numberAt(s, 9);
  const lPower = numberAt(l, 5);
  const power = lPower ?? (charging && outputKw !== null ? -Math.abs(outputKw) : null);
  put(tlm, 'power', power, 1);
  if (charging !== null) {
    tlm.is_charging = charging;
    const chargeKw = Math.max(Math.abs(outputKw ?? 0), inputKw ?? 0, charging && lPower !== null ? -lPower : 0);
    tlm.is_dcfc = charging && (isDc(text(s, 3)) || chargeKw > DC_POWER_KW);
    const tenths = numberAt(s, 5);
    if (!charging) tlm.kwh_charged = 0;
    else if (tenths !== null && tenths >= 0) put(tlm, 'kwh_charged', tenths / 10, 1);
  }
  const range = numberAt(s, 4);
  if (range !== null && range >= 0) put(tlm, 'est_battery_range', range * km, 0);
  const soh = numberAt(s, 8);
  if (soh !== null && soh > 0 && soh <= 150) put(tlm, 'soh', soh, 1);
  const volts = numberAt(s, 7);
  if (volts !== null && volts > 0) put(tlm, 'voltage', volts, 1);
  put(tlm, 'current', numberAt(s, 10), 1);

  // L: where the car is and how fast it goes
  const at = position(numberAt(l, 0), numberAt(l, 1));
  if (at) {
    tlm.lat = round(at.lat, 5);
    tlm.lon = round(at.lon, 5);
    put(tlm, 'heading', numberAt(l, 2), 1);
    put(tlm, 'elevation', numberAt(l, 3), 1);
  }
  const lSpeed = numberAt(l, 4);
  const speed = lSpeed !== null ? lSpeed * km : numberAt(d, 2);
  if (speed !== null) put(tlm, 'speed', Math.max(0, speed), 1);

  // D: the environment
  const parkTime = numberAt(d, 3);
  if (parkTime !== null) tlm.is_parked = parkTime > 0;
  if (fresh(numberAt(d, 5))) put(tlm, 'batt_temp', numberAt(d, 0), 1);
  if (fresh(numberAt(d, 6))) put(tlm, 'ext_temp', numberAt(d, 4), 1);
  const odoTenths = numberAt(d, 1);
  if (odoTenths !== null && odoTenths > 0) put(tlm, 'odometer', (odoTenths / 10) * km, 1);
  return tlm;
}

/** A stale indicator (-1 none, 0 stale, > 0 fresh); a record without one counts as fresh. */
const fresh = (indicator: number | null): boolean => indicator === null || indicator > 0;

/** The charge mode says DC: the v3 firmware's `performance` mode, or a DC plug's name. */
const isDc = (mode: string | null): boolean => mode === 'performance' || isDcText(mode);

/** The telemetry as ABRP's `tlm` parameter: JSON with the fields in their order, none null. */
export function tlmJson(tlm: AbrpTlm): string {
  const out: Record<string, number | boolean> = {};
  for (const key of TLM_FIELDS) {
    const v = tlm[key];
    if (v !== undefined && v !== null && (typeof v === 'boolean' || Number.isFinite(v))) out[key] = v;
  }
  return JSON.stringify(out);
}
