/**
 * The `D` record (docs/protocol/messages.md §3.2, §6.4) as `/api/status` and `/api/charge` show it
 * (docs/protocol/http-api-v2.md §4.8, §4.9): door and status bits as masked numbers, the rest as sent.
 *
 * Two masks differ from REF on purpose (docs/compatibility.md): `carawake` is doors3 bit 0x01 (REF
 * tested 0x02, the cooling pump) and `alarmsounding` is doors4 bit 0x02 (REF tested 0x04, which no
 * firmware sets), so both follow what the module firmware actually reports.
 */
import { addTime, copyFields, masked, splitFields, type RecordBody, type StoredRecord } from './fields.js';

/** The `D` bits: [key, D field, mask]. Also the source of the OpenAPI schemas (http/openapi/record-schemas.ts). */
export const D_BITS = [
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
] as const satisfies readonly (readonly [string, number, number])[];

/** The `D` fields copied as sent: [key, D field]. */
export const D_TEXT = [
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
] as const satisfies readonly (readonly [string, number])[];

/** Every `D` key of `/api/status`. */
export const STATUS_D_KEYS: ReadonlySet<string> = new Set([...D_BITS.map((b) => b[0]), ...D_TEXT.map((t) => t[0])]);

/** The `D` keys of `/api/charge`. */
export const CHARGE_D_KEYS: ReadonlySet<string> = new Set([
  'cp_dooropen',
  'pilotpresent',
  'charging',
  'caron',
  'temperature_pem',
  'temperature_motor',
  'temperature_battery',
  'temperature_charger',
  'temperature_ambient',
  'temperature_cabin',
  'carawake',
  'staletemps',
  'staleambient',
  'charging_12v',
  'vehicle12v',
  'vehicle12v_ref',
  'vehicle12v_current',
]);

/** The bit and text fields of one endpoint's selection of `D` keys. */
export interface EnvironmentKeys {
  bits: readonly (readonly [string, number, number])[];
  text: readonly (readonly [string, number])[];
}

function select(keys: ReadonlySet<string>): EnvironmentKeys {
  return { bits: D_BITS.filter(([key]) => keys.has(key)), text: D_TEXT.filter(([key]) => keys.has(key)) };
}

export const STATUS_D = select(STATUS_D_KEYS);
export const CHARGE_D = select(CHARGE_D_KEYS);

/** Adds the selected `D` keys, with `m_msgtime_d`/`m_msgage_d`. A paranoid `D` adds nothing. */
export function addEnvironment(body: RecordBody, d: StoredRecord | undefined, keys: EnvironmentKeys, now: number): void {
  if (!d || d.paranoid) return;
  const f = splitFields(d.data);
  addTime(body, 'd', d, now);
  for (const [key, n, mask] of keys.bits) body[key] = masked(f, n, mask);
  copyFields(body, f, keys.text);
}
