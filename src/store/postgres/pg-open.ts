/**
 * Opens the PostgreSQL store of a `postgres://` URL: a pool, the migration of its schema, and the
 * one-line errors of the edge (src/store/postgres/pg-errors.ts).
 */
import pg from 'pg';
import type { Pool } from 'pg';
import { VtsError } from '../../errors.js';
import type { StoreOptions } from '../store.js';
import { describePgError, pgTarget, type PgTarget } from './pg-errors.js';
import { migrate } from './pg-schema.js';
import { PgStore } from './pg-store.js';

export interface PgOpenOptions extends StoreOptions {
  /** Whether a schema without vts's tables is given them (default); false: VTS_ERR_NO_DATABASE. */
  create?: boolean;
  /** Told, once, that the vts tables were created (the database as shown, with its schema). */
  onCreated?: (where: string) => void;
  /** Connections of the pool (default 10). */
  poolSize?: number;
}

/** bigint (times, counts, ids) and numeric (sums) as numbers: every value vts stores fits in 2^53. */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

export const CREATE_HINT = "check --database (or VTS_DATABASE), or create one with 'vts user add NAME --password -' or 'vts serve'";

/** A pool on `url`; an idle connection that fails is reported (redacted), never thrown. */
function createPool(url: string, target: PgTarget, opts: PgOpenOptions): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    application_name: 'vts',
    types: TYPES,
  });
  pool.on('error', (err) => opts.onBackgroundError?.(describePgError(err, target)));
  return pool;
}

/**
 * Connects, migrates the schema of the connection's search_path (creating it and the tables
 * unless `create: false`) and returns the store. Every failure is one VtsError naming the
 * database without its password.
 */
export async function openPgStore(url: string, opts: PgOpenOptions = {}): Promise<PgStore> {
  const target = pgTarget(url);
  const pool = createPool(url, target, opts);
  const missing = (why: string): VtsError =>
    new VtsError('VTS_ERR_NO_DATABASE', `no vts database at ${target.shown}: ${why}: ${CREATE_HINT}`, { whole: true });
  try {
    const client = await pool.connect();
    try {
      const { schema, created } = await migrate(client, opts.create !== false, missing);
      if (created) opts.onCreated?.(`${target.shown} (schema ${schema})`);
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw describePgError(err, target);
  }
  return new PgStore(pool, target, opts);
}
