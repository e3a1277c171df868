/**
 * The rows the stores read, as both databases return them (column names of the schema; booleans
 * as 0/1, counts and times as numbers), their mapping to the types of the Store interface, and the
 * values both bind the same way.
 */
import type { ClientType } from '../core/mp/welcome.js';
import type {
  ApiToken,
  AutoProvisionRecord,
  CarMessage,
  CommandAuditEntry,
  HistoricalRecord,
  HistoricalSummary,
  Owner,
  OwnerFlags,
  PushSubscription,
  UtilisationRow,
  Vehicle,
  VehicleType,
} from './store.js';

export interface OwnerRow {
  id: number;
  name: string;
  rights: string;
  created: number;
  password_hash: string;
  email: string | null;
  verified: number;
  disabled: number;
  admin: number;
  api_passwords: number;
  totp_enabled: number;
}

export interface VehicleRow {
  id: string;
  owner_id: number;
  owner_name: string;
  name: string;
  car_password: string;
  type: string;
  paranoid_token: string;
  last_update: number | null;
  created: number;
}

export interface CommandAuditRow {
  id: number;
  vehicle_id: string;
  time: number;
  caller: string;
  via: string;
  kind: string;
  command: string;
  result: string;
  duration_ms: number;
}

export interface CarMessageRow {
  code: string;
  data: string;
  time: number;
  paranoid: number;
  ptoken: string;
  valid: number;
}

export interface HistoricalRow {
  type: string;
  record_number: number;
  time: number;
  data: string;
  expires: number;
}

export interface SummaryRow {
  type: string;
  distinct_records: number;
  total_records: number;
  total_size: number;
  first: number;
  last: number;
}

export interface UtilisationDbRow {
  day: number;
  client_type: string;
  rx: number;
  tx: number;
}

export interface ApiTokenRow {
  owner_id: number;
  token_hash: string;
  application: string;
  purpose: string;
  permit: string;
  created: number;
  last_used: number | null;
}

export interface PushRow {
  owner_id: number;
  vehicle_id: string;
  app_id: string;
  push_type: string;
  push_key_type: string;
  push_key_value: string;
  last_updated: number;
  active: number;
}

export interface AutoProvisionRow {
  key: string;
  server_token: string;
  server_digest: string;
  message: string;
  owner_id: number | null;
}

/** A `since` bound both databases can compare with (parseSince may give -Infinity for "everything"). */
export function bound(since: number): number {
  if (Number.isNaN(since)) return Number.MIN_SAFE_INTEGER;
  return Math.min(Number.MAX_SAFE_INTEGER, Math.max(Number.MIN_SAFE_INTEGER, Math.floor(since)));
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function toOwner(r: OwnerRow): Owner {
  return {
    id: r.id,
    name: r.name,
    rights: r.rights,
    created: r.created,
    email: r.email,
    verified: r.verified !== 0,
    disabled: r.disabled !== 0,
    admin: r.admin !== 0,
    apiPasswords: r.api_passwords !== 0,
    totpEnabled: r.totp_enabled !== 0,
  };
}

export function toApiToken(r: ApiTokenRow): ApiToken {
  return {
    ownerId: r.owner_id,
    tokenHash: r.token_hash,
    application: r.application,
    purpose: r.purpose,
    permit: r.permit,
    created: r.created,
    lastUsed: r.last_used,
  };
}

export function toHistorical(vehicleId: string, r: HistoricalRow): HistoricalRecord {
  return { vehicleId, type: r.type, recordNumber: r.record_number, time: r.time, data: r.data, expires: r.expires };
}

export function toVehicle(r: VehicleRow): Vehicle {
  return {
    id: r.id,
    ownerId: r.owner_id,
    ownerName: r.owner_name,
    name: r.name,
    carPassword: r.car_password,
    type: r.type as VehicleType,
    paranoidToken: r.paranoid_token,
    lastUpdate: r.last_update,
    created: r.created,
  };
}

/** The stored messages, the invalid ones only when asked for. */
export function toCarMessages(rows: readonly CarMessageRow[], includeInvalid: boolean): CarMessage[] {
  const out: CarMessage[] = [];
  for (const r of rows) {
    if (r.valid === 0 && !includeInvalid) continue;
    out.push({ code: r.code, data: r.data, time: r.time, paranoid: r.paranoid !== 0, ptoken: r.ptoken, valid: r.valid !== 0 });
  }
  return out;
}

export function toSummary(r: SummaryRow): HistoricalSummary {
  return {
    type: r.type,
    distinctRecords: r.distinct_records,
    totalRecords: r.total_records,
    totalSize: r.total_size,
    first: r.first,
    last: r.last,
  };
}

export function toUtilisation(r: UtilisationDbRow): UtilisationRow {
  return { day: r.day, clientType: r.client_type as ClientType, rx: r.rx, tx: r.tx };
}

export function toPushSubscription(r: PushRow): PushSubscription {
  return {
    ownerId: r.owner_id,
    vehicleId: r.vehicle_id,
    appId: r.app_id,
    pushType: r.push_type,
    pushKeyType: r.push_key_type,
    pushKeyValue: r.push_key_value,
    lastUpdated: r.last_updated,
    active: r.active !== 0,
  };
}

export function toAutoProvision(r: AutoProvisionRow): AutoProvisionRecord {
  return { key: r.key, serverToken: r.server_token, serverDigest: r.server_digest, message: r.message, ownerId: r.owner_id };
}

export function toCommandAudit(r: CommandAuditRow): CommandAuditEntry & { id: number } {
  return {
    id: r.id,
    vehicleId: r.vehicle_id,
    time: r.time,
    caller: r.caller,
    via: r.via,
    kind: r.kind,
    command: r.command,
    result: r.result,
    durationMs: r.duration_ms,
  };
}

/** The columns of the owner's state flags (Store.setOwnerFlags), by the flag's name. */
export const FLAG_COLUMNS = [
  ['admin', 'admin'],
  ['disabled', 'disabled'],
  ['verified', 'verified'],
] as const satisfies readonly (readonly [keyof OwnerFlags, string])[];
