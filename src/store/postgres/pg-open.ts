/**
 * Opens the PostgreSQL store of a `postgres://` URL: a pool, the migration of its schema, and the
 * one-line errors of the edge (src/store/postgres/pg-errors.ts).
 */
import pg from 'pg';
import type { Pool } from 'pg';
import { VtsError } from '../../errors.js';
import type { StoreOptions } from '../store.js';
import { OutageWatch } from '../outage.js';
import { describePgError, pgTarget, pgUnavailable, type PgTarget } from './pg-errors.js';
import { migrate } from './pg-schema.js';
import { PgStore } from './pg-store.js';
import { NulSafeClient, fromPgText } from './pg-text.js';

export interface PgOpenOptions extends StoreOptions {
  /** Whether a schema without vts's tables is given them (default); false: VTS_ERR_NO_DATABASE. */
  create?: boolean;
  /** Told, once, that the vts tables were created (the database as shown, with its schema). */
  onCreated?: (where: string) => void;
  /** Connections of the pool (default 10). */
  poolSize?: number;
}

const TEXT_ARRAY = 1009;
const parseTextArray = (pg.types.getTypeParser as (oid: number, format: 'text') => (v: string) => (string | null)[])(TEXT_ARRAY, 'text');

/**
 * bigint (times, counts, ids) and numeric (sums) as numbers: every value vts stores fits in 2^53;
 * text as it was before it was written (a NUL character, src/store/postgres/pg-text.ts).
 */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (v: string) => Number(v);
    if (format !== 'binary') {
      if (oid === pg.types.builtins.TEXT || oid === pg.types.builtins.VARCHAR || oid === pg.types.builtins.BPCHAR) return fromPgText;
      if (oid === TEXT_ARRAY) return (v: string) => parseTextArray(v).map((x) => (x === null ? x : fromPgText(x)));
    }
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

export const CREATE_HINT = "check --database (or VTS_DATABASE), or create one with 'vts user add NAME --password -' or 'vts serve'";

/** A connection not established within this (or the statement timeout and its grace, when shorter) is given up (ms). */
const CONNECT_TIMEOUT_MS = 10_000;
/** TCP keepalive probes start after this much silence on a connection (ms). */
const KEEPALIVE_MS = 10_000;
/** A session idle in a transaction this long is ended by the server, whatever the statement timeout (ms). */
const MIN_IDLE_IN_TRANSACTION_MS = 10_000;
/** How much longer than the statement timeout vts waits for an answer before it gives the connection up (ms). */
const SILENCE_GRACE_MS = 1000;

/** The settings of every connection: keepalive, and the timeouts of `timeoutMs` (none when 0 or unset). */
function connectionConfig(url: string, timeoutMs: number | undefined): pg.ClientConfig {
  const ms = timeoutMs !== undefined && timeoutMs > 0 ? Math.max(1, Math.round(timeoutMs)) : 0;
  return {
    connectionString: url,
    connectionTimeoutMillis: ms > 0 ? Math.min(CONNECT_TIMEOUT_MS, ms + SILENCE_GRACE_MS) : CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_MS,
    application_name: 'vts',
    types: TYPES,
    // the server cancels a statement after `ms` (and ends a session left idle in a transaction,
    // whose locks would hold up the other nodes, after twice that, at least 10 s); a connection
    // that has not answered shortly after is silent (a partition, a moved address): pg fails its
    // statement and the pool closes it, the next statement gets a new connection
    ...(ms > 0
      ? { statement_timeout: ms, idle_in_transaction_session_timeout: Math.max(2 * ms, MIN_IDLE_IN_TRANSACTION_MS), query_timeout: ms + SILENCE_GRACE_MS }
      : {}),
  };
}

/**
 * A pool on `url`. An idle connection that fails is closed by the pool: an outage is told to
 * `watch` (once), any other error reported (redacted), never thrown.
 */
function createPool(url: string, target: PgTarget, opts: PgOpenOptions, watch: OutageWatch): Pool {
  const pool = new pg.Pool({ ...connectionConfig(url, opts.databaseTimeoutMs), max: opts.poolSize ?? 10, Client: NulSafeClient });
  pool.on('error', (err) => (pgUnavailable(err) ? watch.failed(describePgError(err, target)) : opts.onBackgroundError?.(describePgError(err, target))));
  return pool;
}

/**
 * Connects, migrates the schema of the connection's search_path (creating it and the tables
 * unless `create: false`) and returns the store. Every failure is one VtsError naming the
 * database without its password. The migration has a connection of its own, without the
 * statement timeouts (a migration of a large table may take long).
 */
export async function openPgStore(url: string, opts: PgOpenOptions = {}): Promise<PgStore> {
  const target = pgTarget(url);
  const watch = new OutageWatch((event) => opts.onOutage?.(event));
  const missing = (why: string): VtsError =>
    new VtsError('VTS_ERR_NO_DATABASE', `no vts database at ${target.shown}: ${why}: ${CREATE_HINT}`, { whole: true });
  const client = new NulSafeClient(connectionConfig(url, 0));
  client.on('error', () => undefined); // a failure shows as the rejection of its statement
  try {
    await client.connect();
    const { schema, created } = await migrate(client, opts.create !== false, missing);
    if (created) opts.onCreated?.(`${target.shown} (schema ${schema})`);
  } catch (err) {
    throw describePgError(err, target);
  } finally {
    await client.end().catch(() => undefined);
  }
  return new PgStore(() => createPool(url, target, opts, watch), target, watch, opts);
}
