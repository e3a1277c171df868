/**
 * The schemas of the decoded record bodies (http-api-v2.md §4.8–§4.11): `/api/status`,
 * `/api/charge`, `/api/location`, `/api/tpms`, and the lock and valet state. As the reference
 * types them (reference-transcripts.md), and clients rely on it: every field copied from a car
 * message is a **string** (null when the message ended before it), the door and status bits are
 * **numbers** equal to their mask or 0 (`"caron":128`, never a boolean), `m_msgage_<x>` is a number
 * of seconds and `m_msgtime_<x>` a `YYYY-MM-DD HH:MM:SS` string. A body has the keys of each record
 * that exists (all of them, null when not sent) and no others; no record at all gives `{}`.
 */
import { CAR_FIELD, UTC_TIME } from './common.js';
import type { Schema } from './types.js';

const AGE: Schema = { type: 'integer', description: 'Seconds since the server received the record.' };

/** `m_msgtime_<x>` and `m_msgage_<x>` of record `x`. */
function times(x: string, what: string): Record<string, Schema> {
  return {
    [`m_msgtime_${x}`]: { ...UTC_TIME, description: `When the server received the ${what} record (UTC).` },
    [`m_msgage_${x}`]: AGE,
  };
}

/** Car fields, each a string or null, with the 1-based field number of its record. */
function fields(record: string, list: readonly (readonly [string, number])[]): Record<string, Schema> {
  return Object.fromEntries(list.map(([key, n]) => [key, { ...CAR_FIELD, description: `${record} field ${n}, as the car sent it.` }]));
}

/** Masked bits: the mask when the bit is set, else 0. */
function bits(list: readonly (readonly [string, number, number])[]): Record<string, Schema> {
  return Object.fromEntries(
    list.map(([key, n, mask]) => [key, { type: 'integer', enum: [0, mask], description: `D field ${n} & ${mask} (a number: ${mask} when set, 0 when not).` }]),
  );
}

const S_STATUS = [
  ['soc', 1],
  ['units', 2],
  ['chargestate', 5],
  ['mode', 6],
  ['idealrange', 7],
  ['estimatedrange', 8],
  ['cac100', 19],
  ['cooldown_active', 24],
  ['idealrange_max', 30],
  ['soh', 34],
] as const;

const S_CHARGE = [
  ...S_STATUS,
  ['linevoltage', 3],
  ['chargecurrent', 4],
  ['chargelimit', 9],
  ['chargeduration', 10],
  ['chargeb4', 11],
  ['chargekwh', 12],
  ['chargesubstate', 13],
  ['chargetimermode', 16],
  ['chargestarttime', 17],
  ['chargetimerstale', 18],
  ['charge_etr_full', 20],
  ['charge_etr_limit', 21],
  ['charge_limit_range', 22],
  ['charge_limit_soc', 23],
  ['cooldown_tbattery', 25],
  ['cooldown_timelimit', 26],
  ['charge_estimate', 27],
  ['charge_etr_range', 28],
  ['charge_etr_soc', 29],
  ['chargetype', 31],
  ['chargepower', 32],
  ['battvoltage', 33],
  ['chargepowerinput', 35],
  ['chargerefficiency', 36],
  ['batt_current', 37],
  ['batt_range_speed', 38],
  ['charge_kwh_grid', 39],
  ['charge_kwh_grid_total', 40],
  ['batt_capacity', 41],
] as const;

/** The bits of D (docs/compatibility.md: carawake and alarmsounding follow the firmware's masks). */
const D_BITS = [
  ['fl_dooropen', 1, 0x01],
  ['fr_dooropen', 1, 0x02],
  ['cp_dooropen', 1, 0x04],
  ['pilotpresent', 1, 0x08],
  ['charging', 1, 0x10],
  ['handbrake', 1, 0x40],
  ['caron', 1, 0x80],
  ['carlocked', 2, 0x08],
  ['valetmode', 2, 0x10],
  ['bt_open', 2, 0x40],
  ['tr_open', 2, 0x80],
  ['carawake', 12, 0x01],
  ['alarmsounding', 16, 0x02],
  ['charging_12v', 18, 0x10],
] as const;

const D_TEXT = [
  ['temperature_pem', 4],
  ['temperature_motor', 5],
  ['temperature_battery', 6],
  ['tripmeter', 7],
  ['odometer', 8],
  ['speed', 9],
  ['parkingtimer', 10],
  ['temperature_ambient', 11],
  ['staletemps', 13],
  ['staleambient', 14],
  ['vehicle12v', 15],
  ['vehicle12v_ref', 17],
  ['temperature_charger', 19],
  ['vehicle12v_current', 20],
  ['temperature_cabin', 21],
] as const;

const CHARGE_D = new Set([
  'cp_dooropen',
  'pilotpresent',
  'charging',
  'caron',
  'carawake',
  'charging_12v',
  'temperature_pem',
  'temperature_motor',
  'temperature_battery',
  'temperature_charger',
  'temperature_ambient',
  'temperature_cabin',
  'staletemps',
  'staleambient',
  'vehicle12v',
  'vehicle12v_ref',
  'vehicle12v_current',
]);

/** An object of exactly these keys; each group (keyed by its time field) all present or all absent. */
function recordBody(description: string, groups: Record<string, Record<string, Schema>>): Schema {
  const properties: Record<string, Schema> = {};
  const dependentRequired: Record<string, string[]> = {};
  for (const [timeKey, props] of Object.entries(groups)) {
    Object.assign(properties, props);
    dependentRequired[timeKey] = Object.keys(props).filter((k) => k !== timeKey);
  }
  return { type: 'object', description, properties, additionalProperties: false, dependentRequired };
}

const statusD = { ...times('d', 'D'), ...bits(D_BITS), ...fields('D', D_TEXT) };
const chargeD = Object.fromEntries(Object.entries(statusD).filter(([k]) => k.startsWith('m_msg') || CHARGE_D.has(k)));

const W_FIELDS = [
  ['fr_pressure', 1],
  ['fr_temperature', 2],
  ['rr_pressure', 3],
  ['rr_temperature', 4],
  ['fl_pressure', 5],
  ['fl_temperature', 6],
  ['rl_pressure', 7],
  ['rl_temperature', 8],
  ['staletpms', 9],
] as const;

const TPMS_W: Schema = recordBody('From the four-wheel `W` record (pressures in psi as sent).', { m_msgtime_w: { ...times('w', 'W'), ...fields('W', W_FIELDS) } });

const TPMS_Y: Schema = {
  type: 'object',
  description:
    'From the extended `Y` record (mp-messages.md §3.5): per wheel `<name>` (its name lower-cased) the pressure in kPa as sent and in ' +
    'psi (a number), temperature, health and alert as sent; the four validity fields; `staletpms` their numeric maximum; ' +
    '`m_msgtime_w`/`m_msgage_w` copy the `y` times for clients of the `W` body.',
  properties: {
    ...times('y', 'Y'),
    ...times('w', 'Y'),
    stale_pressure: CAR_FIELD,
    stale_temperature: CAR_FIELD,
    stale_health: CAR_FIELD,
    stale_alert: CAR_FIELD,
    staletpms: { type: 'number', description: 'The numeric maximum of the four validity fields.' },
  },
  patternProperties: {
    '_pressure_kpa$': CAR_FIELD,
    '^(?!stale_).*_pressure$': { type: 'number', description: 'kPa × 0.14503773773020923 (psi).' },
    '_(temperature|health|alert)$': CAR_FIELD,
  },
  additionalProperties: false,
  required: ['m_msgtime_y', 'm_msgage_y', 'm_msgtime_w', 'm_msgage_w', 'stale_pressure', 'stale_temperature', 'stale_health', 'stale_alert', 'staletpms'],
};

const EMPTY: Schema = { type: 'object', maxProperties: 0, description: 'No such record stored.' };

export const RECORD_SCHEMAS: Record<string, Schema> = {
  StatusBody: recordBody('`S` (main fields) and `D` (doors, bits, temperatures, odometer…); `{}` with neither.', {
    m_msgtime_s: { ...times('s', 'S'), ...fields('S', S_STATUS) },
    m_msgtime_d: statusD,
  }),
  ChargeBody: recordBody('`S` (every charge field) and part of `D`; `{}` with neither.', {
    m_msgtime_s: { ...times('s', 'S'), ...fields('S', S_CHARGE) },
    m_msgtime_d: chargeD,
  }),
  LocationBody: recordBody('`L` fields 1–14 (15–19 are not exposed); `{}` without an `L`.', {
    m_msgtime_l: {
      ...times('l', 'L'),
      ...fields('L', [
        ['latitude', 1],
        ['longitude', 2],
        ['direction', 3],
        ['altitude', 4],
        ['gpslock', 5],
        ['stalegps', 6],
        ['speed', 7],
        ['tripmeter', 8],
        ['drivemode', 9],
        ['power', 10],
        ['energyused', 11],
        ['energyrecd', 12],
        ['invpower', 13],
        ['invefficiency', 14],
      ]),
    },
  }),
  TpmsBody: { oneOf: [EMPTY, { ...TPMS_W, required: ['m_msgtime_w'] }, TPMS_Y], description: 'From `Y` when there is one, else from `W`; `{}` with neither.' },
  LockState: recordBody('The lock and valet bits of the stored `D` record, as `/api/status` shows them; `{}` without a `D`.', {
    m_msgtime_d: { ...times('d', 'D'), ...bits(D_BITS.filter(([k]) => k === 'carlocked' || k === 'valetmode')) },
  }),
};
