/**
 * The schemas of the decoded record bodies (docs/protocol/http-api-v2.md §4.8–§4.11): `/api/status`,
 * `/api/charge`, `/api/location`, `/api/tpms`, and the lock and valet state. As the reference
 * types them (docs/protocol/transcripts.md), and clients rely on it: every field copied from a car
 * message is a **string** (null when the message ended before it), the door and status bits are
 * **numbers** equal to their mask or 0 (`"caron":128`, never a boolean), `m_msgage_<x>` is a number
 * of seconds and `m_msgtime_<x>` a `YYYY-MM-DD HH:MM:SS` string. A body has the keys of each record
 * that exists (all of them, null when not sent) and no others; no record at all gives `{}`. The keys and
 * field numbers come from the decoders' own tables (src/core/records/), so the schema follows them.
 */
import { CHARGE_S_FIELDS } from '../../core/records/charge.js';
import { CHARGE_D, D_BITS, STATUS_D, type EnvironmentKeys } from '../../core/records/environment.js';
import { L_FIELDS } from '../../core/records/location.js';
import { STATUS_S_FIELDS } from '../../core/records/status.js';
import { W_FIELDS } from '../../core/records/tpms.js';
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

/** `m_msgtime_d`/`m_msgage_d` and one endpoint's selection of `D` keys. */
function environment(keys: EnvironmentKeys): Record<string, Schema> {
  return { ...times('d', 'D'), ...bits(keys.bits), ...fields('D', keys.text) };
}

const TPMS_W: Schema = recordBody('From the four-wheel `W` record (pressures in psi as sent).', { m_msgtime_w: { ...times('w', 'W'), ...fields('W', W_FIELDS) } });

const TPMS_Y: Schema = {
  type: 'object',
  description:
    'From the extended `Y` record (docs/protocol/messages.md §3.5): per wheel `<name>` (its name lower-cased) the pressure in kPa as sent and in ' +
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
    m_msgtime_s: { ...times('s', 'S'), ...fields('S', STATUS_S_FIELDS) },
    m_msgtime_d: environment(STATUS_D),
  }),
  ChargeBody: recordBody('`S` (every charge field) and part of `D`; `{}` with neither.', {
    m_msgtime_s: { ...times('s', 'S'), ...fields('S', CHARGE_S_FIELDS) },
    m_msgtime_d: environment(CHARGE_D),
  }),
  LocationBody: recordBody('`L` fields 1–14 (15–19 are not exposed); `{}` without an `L`.', {
    m_msgtime_l: {
      ...times('l', 'L'),
      ...fields('L', L_FIELDS),
    },
  }),
  TpmsBody: { oneOf: [EMPTY, { ...TPMS_W, required: ['m_msgtime_w'] }, TPMS_Y], description: 'From `Y` when there is one, else from `W`; `{}` with neither.' },
  LockState: recordBody('The lock and valet bits of the stored `D` record, as `/api/status` shows them; `{}` without a `D`.', {
    m_msgtime_d: { ...times('d', 'D'), ...bits(D_BITS.filter(([k]) => k === 'carlocked' || k === 'valetmode')) },
  }),
};
