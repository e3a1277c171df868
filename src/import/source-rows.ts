/**
 * The rows of a reference server's database (docs/protocol/http-api-v2.md §7) as vts keeps them: pure mapping
 * and validation, no I/O. A row vts cannot keep becomes a `Skip`: `bad` when it breaks one of
 * vts's rules (reported row by row), else an ordinary reason (expired, deleted: only counted).
 */
import { createHash } from 'node:crypto';
import { isDrupalHash } from '../auth/drupal-hash.js';
import { looksLikeApiToken } from '../auth/api-token.js';
import { CAR_PASSWORD, MAX_VEHICLE_NAME, USER_NAME, VEHICLE_ID } from '../core/auth/identifier-rules.js';
import type { ImportValue } from '../store/import-store.js';
import type { VehicleType } from '../store/store.js';

export interface Skip {
  skip: string;
  bad: boolean;
}

const skip = (reason: string, bad = false): Skip => ({ skip: reason, bad });
export const isSkip = (v: unknown): v is Skip => typeof v === 'object' && v !== null && 'skip' in v;

/** A source row as mysql2 returns it (dateStrings: datetimes as 'YYYY-MM-DD HH:MM:SS', UTC). */
export type SourceRow = Record<string, unknown>;

const str = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : String(v));
const int = (v: unknown): number => Number(v ?? 0);

/** Epoch seconds of a reference datetime (UTC); null for the "never" values (before 1971, zero dates). */
export function epochOf(v: unknown): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(str(v));
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (y < 1971 || mo < 1 || d < 1) return null;
  return Math.floor(Date.UTC(y, mo - 1, d, h, mi, s) / 1000);
}

export const digest = (parts: readonly unknown[]): string => createHash('sha256').update(JSON.stringify(parts)).digest('hex');

const shown = (v: string): string => JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);

function vehicleIdOf(v: unknown): string | Skip {
  const id = str(v);
  if (id.length > 32) return skip(`vehicle id ${shown(id)} is longer than 32 characters`, true);
  if (!VEHICLE_ID.test(id)) return skip(`vehicle id ${shown(id)} is not 1-32 characters of A-Z a-z 0-9 . _ -`, true);
  return id.toUpperCase();
}

// --- owners ---

/** How a source password is brought over. */
export type SourcePassword =
  | { kind: 'drupal'; hash: string }
  | { kind: 'plain'; password: string }
  /** no password vts can check: the account is imported without one (reported) */
  | { kind: 'none'; why: string };

/** A Drupal 7 hash is kept; another hash format cannot be checked; anything else is plain text (AuthDbSimple). */
export function passwordOf(pass: string): SourcePassword {
  if (isDrupalHash(pass)) return { kind: 'drupal', hash: pass };
  if (pass === '') return { kind: 'none', why: 'it has no password' };
  if (/^(U?\$[SPH]\$|\$2[abxy]?\$|\$[156]\$)/.test(pass)) return { kind: 'none', why: `its password is a hash of a kind vts cannot check (${pass.slice(0, 4)}…)` };
  return { kind: 'plain', password: pass };
}

export interface SourceOwner {
  sourceKey: string;
  name: string;
  mail: string;
  password: SourcePassword;
  /** Of the fields besides the password. */
  fingerprint: string;
}

export function ownerOf(r: SourceRow): SourceOwner | Skip {
  if (int(r.deleted) !== 0) return skip('deleted');
  if (int(r.status) !== 1) return skip('not active (status ≠ 1)');
  const name = str(r.name);
  if (!USER_NAME.test(name)) return skip(`user name ${shown(name)} is not 1-60 characters of A-Z a-z 0-9 . _ @ -`, true);
  const mail = str(r.mail);
  return { sourceKey: str(r.owner), name, mail, password: passwordOf(str(r.pass)), fingerprint: digest([name, mail]) };
}

// --- vehicles ---

export interface SourceVehicle {
  /** `<owner>/<VEHICLEID>` */
  sourceKey: string;
  sourceOwner: string;
  id: string;
  name: string;
  carPassword: string;
  type: VehicleType;
  paranoidToken: string;
  lastUpdate: number | null;
  fingerprint: string;
}

/** The key of a source vehicle (owner and vehicle id; ids compare case-insensitively there). */
export const vehicleKey = (owner: unknown, vehicleId: unknown): string => `${str(owner)}/${str(vehicleId).toUpperCase()}`;

export function vehicleOf(r: SourceRow): SourceVehicle | Skip {
  if (int(r.deleted) !== 0) return skip('deleted');
  const id = vehicleIdOf(r.vehicleid);
  if (isSkip(id)) return id;
  const carPassword = str(r.carpass);
  if (!CAR_PASSWORD.test(carPassword)) {
    return skip(`the car password of ${id} cannot be stored (${carPassword === '' ? 'it is empty' : 'vts takes 1-255 characters without whitespace'})`, true);
  }
  const type = str(r.v_type).toUpperCase() || 'CAR';
  if (type !== 'CAR' && type !== 'SERVER') return skip(`vehicle ${id} has the type ${shown(str(r.v_type))} (CAR or SERVER)`, true);
  // eslint-disable-next-line no-control-regex
  const name = str(r.vehiclename).replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, MAX_VEHICLE_NAME);
  const paranoidToken = str(r.v_ptoken);
  const lastUpdate = epochOf(r.v_lastupdate);
  const sourceOwner = str(r.owner);
  return {
    sourceKey: vehicleKey(r.owner, r.vehicleid),
    sourceOwner,
    id,
    name,
    carPassword,
    type,
    paranoidToken,
    lastUpdate,
    fingerprint: digest([sourceOwner, id, name, carPassword, type, paranoidToken, lastUpdate]),
  };
}

// --- rows of the other tables, as IMPORT_TABLES orders their columns ---

/** Where the rows' owners and vehicles went (source key → vts id). */
export interface Mapping {
  owner(sourceOwner: unknown): number | undefined;
  vehicle(sourceOwner: unknown, vehicleId: unknown): string | undefined;
}

const NO_VEHICLE = skip('its vehicle was not imported');
const NO_OWNER = skip('its owner was not imported');

export function carMessageOf(r: SourceRow, map: Mapping): ImportValue[] | Skip {
  const vehicle = map.vehicle(r.owner, r.vehicleid);
  if (vehicle === undefined) return NO_VEHICLE;
  const code = str(r.m_code);
  if (code.length !== 1) return skip(`message code ${shown(code)} of ${vehicle} is not one character`, true);
  return [vehicle, code, str(r.m_msg), epochOf(r.m_msgtime) ?? 0, int(r.m_paranoid) !== 0, str(r.m_ptoken), int(r.m_valid) !== 0];
}

const EXPIRED = skip('expired');
const UTILISATION = skip('traffic counters (*-OVM-Utilisation): vts counts its own');

export function historicalOf(r: SourceRow, map: Mapping, now: number): ImportValue[] | Skip {
  const expires = epochOf(r.h_expires) ?? 0;
  if (expires <= now) return EXPIRED;
  const type = str(r.h_recordtype);
  if (type.toLowerCase() === '*-ovm-utilisation') return UTILISATION;
  const vehicle = map.vehicle(r.owner, r.vehicleid);
  if (vehicle === undefined) return NO_VEHICLE;
  if (type === '') return skip(`a record of ${vehicle} has no record type`, true);
  const time = epochOf(r.h_timestamp);
  if (time === null) return skip(`a ${type} record of ${vehicle} has no valid time (${shown(str(r.h_timestamp))})`, true);
  return [vehicle, type, int(r.h_recordnumber), time, str(r.h_data), expires];
}

export function subscriptionOf(r: SourceRow, map: Mapping): ImportValue[] | Skip {
  const owner = map.owner(r.owner);
  if (owner === undefined) return NO_OWNER;
  const vehicle = map.vehicle(r.owner, r.vehicleid);
  if (vehicle === undefined) return NO_VEHICLE;
  const appId = str(r.appid);
  if (appId === '') return skip(`a subscription for ${vehicle} has no app id`, true);
  return [owner, vehicle, appId, str(r.pushtype), str(r.pushkeytype), str(r.pushkeyvalue), epochOf(r.lastupdated) ?? 0, int(r.active) !== 0];
}

export function tokenOf(r: SourceRow, map: Mapping, hash: (token: string) => string): ImportValue[] | Skip {
  const owner = map.owner(r.owner);
  if (owner === undefined) return NO_OWNER;
  const token = str(r.token);
  // vts looks a token up only when the password given looks like one (src/auth/api-token.ts)
  if (!looksLikeApiToken(token)) return skip(`a token of owner ${str(r.owner)} is not 64 hex digits (${token.length} characters): vts would never check it`, true);
  return [owner, hash(token.toLowerCase()), str(r.application), str(r.purpose), str(r.permit), epochOf(r.created) ?? 0, epochOf(r.lastused)];
}

export function autoProvisionOf(r: SourceRow, map: Mapping): ImportValue[] | Skip {
  if (int(r.deleted) !== 0) return skip('deleted');
  const key = str(r.ap_key);
  if (key === '') return skip('an auto-provisioning record has no key', true);
  return [key, str(r.ap_stoken), str(r.ap_sdigest), str(r.ap_msg), map.owner(r.owner) ?? null];
}
