/**
 * What `vts import` (src/import/) writes into the store, on both databases: owners and vehicles
 * with the record of where they came from (their origin), and the rows of five more tables,
 * compared with what is stored so that an import run again writes only what changed.
 *
 * The tables below are described once, as columns, for the SQLite and the PostgreSQL
 * implementation alike (src/store/sqlite/sqlite-import.ts, src/store/postgres/pg-import.ts).
 */
import type { VehicleType } from './types.js';

export type ImportValue = string | number | boolean | null;

export interface ImportColumn {
  name: string;
  type: 'text' | 'bigint' | 'boolean';
}

export interface ImportTableSpec {
  /** The columns of the table's key, in the order rows give them. */
  key: readonly ImportColumn[];
  /** Compared with the stored row, and written when it is new or differs. */
  values: readonly ImportColumn[];
  /** Written with a new row only (a token's last use here is vts's own). */
  insertOnly: readonly ImportColumn[];
  /** The key column that compares case-insensitively (a record type). */
  folded?: string;
  /** A value column: a stored row with a greater value there is newer and kept. */
  newer?: string;
}

const text = (name: string): ImportColumn => ({ name, type: 'text' });
const bigint = (name: string): ImportColumn => ({ name, type: 'bigint' });
const boolean = (name: string): ImportColumn => ({ name, type: 'boolean' });

export const IMPORT_TABLES = {
  car_messages: {
    key: [text('vehicle_id'), text('code')],
    values: [text('data'), bigint('time'), boolean('paranoid'), text('ptoken'), boolean('valid')],
    insertOnly: [],
    newer: 'time',
  },
  historical: {
    key: [text('vehicle_id'), text('type'), bigint('record_number'), bigint('time')],
    values: [text('data'), bigint('expires')],
    insertOnly: [],
    folded: 'type',
  },
  api_tokens: {
    key: [bigint('owner_id'), text('token_hash')],
    values: [text('application'), text('purpose'), text('permit'), bigint('created')],
    insertOnly: [bigint('last_used')],
  },
  push_subscriptions: {
    key: [bigint('owner_id'), text('vehicle_id'), text('app_id')],
    values: [text('push_type'), text('push_key_type'), text('push_key_value'), bigint('last_updated'), boolean('active')],
    insertOnly: [],
  },
  autoprovision: {
    key: [text('key')],
    values: [text('server_token'), text('server_digest'), text('message'), bigint('owner_id')],
    insertOnly: [],
  },
} as const satisfies Record<string, ImportTableSpec>;

export type ImportTable = keyof typeof IMPORT_TABLES;

/** What became of a row: new, changed, the same as stored, or older than the stored one (kept). */
export type RowOutcome = 'added' | 'updated' | 'unchanged' | 'newer-here';

export type OriginKind = 'owner' | 'vehicle' | 'token' | 'subscription' | 'autoprovision';

export interface ImportOrigin {
  /** The row's key at the source. */
  sourceKey: string;
  /** The key of the row it became here. */
  targetKey: string;
  /** A digest of the source row as last imported. */
  fingerprint: string;
  /** For an owner: the hash its imported password is checked against ('' otherwise). */
  secret: string;
}

export interface ImportedOwnerRow {
  id: number;
  name: string;
  mail: string;
  passwordHash: string;
}

export interface ImportedOwner {
  /** The owner to update; undefined adds one. */
  id?: number;
  name: string;
  mail: string;
  /** undefined keeps the stored hash (of an update). */
  passwordHash?: string;
  rights: string;
}

export interface ImportedVehicle {
  id: string;
  ownerId: number;
  name: string;
  carPassword: string;
  type: VehicleType;
  paranoidToken: string;
  lastUpdate: number | null;
}

export interface ImportStore {
  /** The origins of one kind. */
  origins(kind: OriginKind): Promise<ImportOrigin[]>;
  owner(id: number): Promise<ImportedOwnerRow | undefined>;
  /**
   * Adds or updates an owner and records its origin (targetKey: the owner's id), in one
   * transaction.
   * @returns the owner's id
   * @throws VtsError VTS_ERR_DUPLICATE_USER when another owner has the name
   */
  putOwner(o: ImportedOwner, origin: Omit<ImportOrigin, 'targetKey'>): Promise<number>;
  /**
   * Adds or updates a vehicle and records its origin (targetKey: the vehicle's id), in one
   * transaction.
   * @throws VtsError VTS_ERR_UNKNOWN_USER
   */
  putVehicle(v: ImportedVehicle, origin: Omit<ImportOrigin, 'targetKey'>): Promise<void>;
  /**
   * Compares each row (key, values, insert-only columns in the order of IMPORT_TABLES) with the
   * stored one and, unless `dryRun`, writes the new and changed ones, in one transaction.
   */
  putRows(table: ImportTable, rows: readonly (readonly ImportValue[])[], dryRun: boolean): Promise<RowOutcome[]>;
  /** Records (or replaces) origins of rows written by putRows. */
  putOrigins(kind: OriginKind, origins: readonly ImportOrigin[]): Promise<void>;
  /** Removes rows by key (as putRows gives it) with their origins: gone at the source. */
  removeImported(kind: OriginKind, table: ImportTable, rows: readonly { sourceKey: string; key: readonly ImportValue[] }[]): Promise<number>;
}

// --- shared by the implementations ---

export function columnsOf(spec: ImportTableSpec): ImportColumn[] {
  return [...spec.key, ...spec.values, ...spec.insertOnly];
}

/** A stored value as the import compares it (0/1 and strings of numbers from the drivers). */
export function normalise(column: ImportColumn, value: unknown): ImportValue {
  if (value === null || value === undefined) return null;
  if (column.type === 'boolean') return value === true || value === 1 || value === '1' || value === 't';
  if (column.type === 'bigint') return Number(value);
  return String(value);
}

/** The outcome of one row against the stored one's value columns (undefined: none stored). */
export function outcomeOf(spec: ImportTableSpec, row: readonly ImportValue[], stored: Record<string, unknown> | undefined): RowOutcome {
  if (!stored) return 'added';
  const base = spec.key.length;
  let same = true;
  spec.values.forEach((c, i) => {
    if (normalise(c, stored[c.name]) !== normalise(c, row[base + i])) same = false;
  });
  if (same) return 'unchanged';
  if (spec.newer !== undefined) {
    const i = spec.values.findIndex((c) => c.name === spec.newer);
    const here = Number(stored[spec.newer]);
    if (here > Number(row[base + i])) return 'newer-here';
  }
  return 'updated';
}

/** The value to bind for SQLite (booleans as 0/1). */
export function sqliteValue(value: ImportValue): string | number | null {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}
