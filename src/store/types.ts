/**
 * The values the Store interface (src/store/store.ts) takes and gives: owners, vehicles, car
 * messages, historical records, tokens, subscriptions and audit entries. Apart from store.ts, so
 * that the parts of the store (push-store.ts, import-store.ts) can name them without importing the
 * interface that names the parts; store.ts re-exports them, its importers need not know.
 */
import type { ClientType } from '../core/mp/welcome.js';
import type { HistoricalTypeSummary } from '../core/mp/server-commands.js';

export interface Owner {
  id: number;
  name: string;
  /** Rights granted by the account password (`*` = everything). */
  rights: string;
  created: number;
  /** The mail address (signed-up accounts, issue 31); null when none was given. */
  email: string | null;
  /** false until the mailed link of a sign-up is followed (accounts made by the CLI are verified). */
  verified: boolean;
  /** Disabled by an operator: no login of any kind. */
  disabled: boolean;
  /** The operator's right (the Admin section, `/api/admin`); not part of the rights' `*`. */
  admin: boolean;
  /** Whether the account password logs in on the API v2 and MP app logins (false: API tokens only). */
  apiPasswords: boolean;
  /** Whether the dashboard sign-in asks for a TOTP code. */
  totpEnabled: boolean;
}

/** The state flags of an account that an operator sets (`Store.setOwnerFlags`); each one absent is left alone. */
export interface OwnerFlags {
  admin?: boolean;
  disabled?: boolean;
  verified?: boolean;
}

export interface OwnerWithSecret extends Owner {
  /** scrypt hash in the text form of src/auth/password.ts. */
  passwordHash: string;
}

export type VehicleType = 'CAR' | 'SERVER';

export interface Vehicle {
  id: string;
  ownerId: number;
  ownerName: string;
  name: string;
  /** The MP scheme-0 shared secret: needed in clear for HMAC-MD5 (see docs/compatibility.md). */
  carPassword: string;
  type: VehicleType;
  /** Last paranoid token the car announced (`ET`), '' when none. */
  paranoidToken: string;
  /** Time of the last stored car message; null when the car never sent one. */
  lastUpdate: number | null;
  created: number;
}

/** What `updateVehicle` changes: the display name, the car password (absent: kept). */
export interface VehicleChange {
  name?: string;
  carPassword?: string;
}

export interface NewVehicle {
  id: string;
  ownerId: number;
  name: string;
  carPassword: string;
  type?: VehicleType;
}

/** How one row of `Store.addVehicles` ended (`id` upper-cased). */
export type AddVehicleResult =
  | { id: string; added: true }
  | { id: string; added: false; error: 'VTS_ERR_DUPLICATE_VEHICLE' | 'VTS_ERR_UNKNOWN_USER' };

/** The latest message of one code from a car (docs/protocol/mp.md §9.1). */
export interface CarMessage {
  code: string;
  data: string;
  time: number;
  paranoid: boolean;
  /** Paranoid token in force on the car's connection when the message was stored. */
  ptoken: string;
  valid: boolean;
}

export interface HistoricalRecord {
  vehicleId: string;
  type: string;
  recordNumber: number;
  time: number;
  data: string;
  expires: number;
}

/** One row per record type; totalSize = Σ (len(type) + len(data) + len(vehicleid) + 20) bytes. */
export type HistoricalSummary = HistoricalTypeSummary;

/** Bytes counted for one vehicle, client type and UTC day. */
export interface UtilisationDelta {
  vehicleId: string;
  /** Epoch seconds of the UTC midnight starting the day. */
  day: number;
  clientType: ClientType;
  /** Bytes the server received from clients of that type. */
  rx: number;
  /** Bytes the server sent to clients of that type. */
  tx: number;
}

export interface UtilisationRow {
  day: number;
  clientType: ClientType;
  rx: number;
  tx: number;
}

export interface ApiToken {
  ownerId: number;
  /** Hex SHA-256 of the token; the token itself is never stored. */
  tokenHash: string;
  application: string;
  purpose: string;
  permit: string;
  created: number;
  lastUsed: number | null;
}

export interface PushSubscription {
  ownerId: number;
  vehicleId: string;
  appId: string;
  pushType: string;
  pushKeyType: string;
  pushKeyValue: string;
  lastUpdated: number;
  active: boolean;
}

export interface AutoProvisionRecord {
  key: string;
  serverToken: string;
  serverDigest: string;
  message: string;
  ownerId: number | null;
}

/** One command run through the server (never a secret: the command text is masked). */
export interface CommandAuditEntry {
  vehicleId: string;
  /** Epoch seconds when it was asked. */
  time: number;
  /** Who asked: `user:<name>`, `vehicle:<id>` (custom API), `mp:<connection>`. */
  caller: string;
  /** The path it came by: `api`, `custom-api`, `api-v2`, … */
  via: string;
  /** `shell`, `js` or `mp`. */
  kind: string;
  command: string;
  /** `0`…`3` (the MP result), or `timeout`, `not-connected`, `queue-full`, `error`. */
  result: string;
  durationMs: number;
}
