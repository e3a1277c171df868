/**
 * The reference server's database (MySQL/MariaDB, docs/protocol/http-api-v2.md §7) as `vts import` reads it:
 * the URL, a read-only connection (mysql2), the check that it holds the reference's tables, row
 * counts, and rows streamed in key order, a batch at a time, with bounded memory. It never writes:
 * the session is READ ONLY, so a statement that would write fails in the server.
 */
import { createConnection, type Connection, type ConnectionOptions, type RowDataPacket } from 'mysql2/promise';
import { printableLine } from '../core/printable.js';
import { VtsError } from '../errors.js';

/** The tables and the columns vts reads from each (a reference schema has at least these). */
export const REFERENCE_TABLES = {
  ovms_owners: ['owner', 'name', 'mail', 'pass', 'status', 'deleted', 'changed'],
  ovms_cars: ['vehicleid', 'vehiclename', 'owner', 'carpass', 'v_ptoken', 'v_type', 'deleted', 'changed', 'v_lastupdate'],
  ovms_carmessages: ['owner', 'vehicleid', 'm_code', 'm_valid', 'm_msgtime', 'm_paranoid', 'm_ptoken', 'm_msg'],
  ovms_historicalmessages: ['owner', 'vehicleid', 'h_timestamp', 'h_recordtype', 'h_recordnumber', 'h_data', 'h_expires'],
  ovms_notifies: ['owner', 'vehicleid', 'appid', 'pushtype', 'pushkeytype', 'pushkeyvalue', 'lastupdated', 'active'],
  ovms_apitokens: ['owner', 'token', 'application', 'purpose', 'permit', 'created', 'lastused'],
  ovms_autoprovision: ['ap_key', 'ap_stoken', 'ap_sdigest', 'ap_msg', 'deleted', 'changed', 'owner'],
} as const;

export type ReferenceTable = keyof typeof REFERENCE_TABLES;

/** Where the reference database is, for messages: never the password. */
export interface SourceTarget {
  /** `mysql://user@host:port/db` or `mysql://user@/db?socket=…`. */
  shown: string;
  database: string;
}

export interface ReferenceSource {
  readonly target: SourceTarget;
  /** Rows of a table (for the progress total). */
  count(table: ReferenceTable): Promise<number>;
  /**
   * The rows of `table`, ordered by `key` (columns of a unique key), `batch` at a time: each
   * batch starts after the last row of the one before (keyset paging, no OFFSET), so memory stays
   * bounded however large the table.
   */
  batches(table: ReferenceTable, key: readonly string[], batch: number): AsyncGenerator<RowDataPacket[]>;
  close(): Promise<void>;
}

/** Defaults of --connect-timeout and --query-timeout. */
export const CONNECT_TIMEOUT_MS = 10_000;
export const QUERY_TIMEOUT_MS = 300_000;

const HINT = 'give the reference database as mysql://user:password@host:3306/database (or mysql://user@localhost/database?socket=/run/mysqld/mysqld.sock)';

/**
 * Reads a `mysql://` URL; a malformed one is VTS_ERR_CONFIG (without the URL: it may hold the
 * password). A URL without a password takes MYSQL_PWD's, as the mysql client does (a password
 * out of the process list).
 */
export function sourceOptions(url: string, env: NodeJS.ProcessEnv = process.env, connectTimeoutMs = CONNECT_TIMEOUT_MS): { options: ConnectionOptions; target: SourceTarget } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new VtsError('VTS_ERR_CONFIG', `not a URL: ${HINT}`);
  }
  if (u.protocol !== 'mysql:' && u.protocol !== 'mariadb:') throw new VtsError('VTS_ERR_CONFIG', `not a mysql:// URL (${u.protocol}): ${HINT}`);
  const decode = (part: string): string => {
    try {
      return decodeURIComponent(part);
    } catch {
      throw new VtsError('VTS_ERR_CONFIG', `a %-escape of the URL is not valid: ${HINT}`);
    }
  };
  const database = decode(u.pathname.slice(1));
  if (database === '' || database.includes('/')) throw new VtsError('VTS_ERR_CONFIG', `no database in the URL: ${HINT}`);
  const user = decode(u.username) || 'root';
  const socket = u.searchParams.get('socket') ?? undefined;
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost';
  const port = u.port ? Number(u.port) : 3306;
  const where = socket ? `?socket=${socket}` : '';
  return {
    options: {
      user,
      password: decode(u.password) || env.MYSQL_PWD || '',
      database,
      ...(socket ? { socketPath: socket } : { host, port }),
      connectTimeout: connectTimeoutMs,
      // times as they are stored (UTC), as text: turned into epoch seconds here, not by the driver
      dateStrings: true,
      supportBigNumbers: true,
      charset: 'utf8mb4',
    },
    target: { shown: `mysql://${encodeURIComponent(user)}@${socket ? '' : `${host}:${port}`}/${encodeURIComponent(database)}${where}`, database },
  };
}

const codeOf = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};

/** The one line of a connection that failed (what came from the server made printable). */
function connectError(err: unknown, target: SourceTarget, user: string, timeoutMs: number): VtsError {
  const c = codeOf(err);
  const say = (m: string): VtsError => new VtsError('VTS_ERR_IMPORT_SOURCE', printableLine(m), { whole: true, cause: err });
  if (c.startsWith('ER_ACCESS_DENIED') || c === 'ER_DBACCESS_DENIED_ERROR') return say(`the server refused the login of user ${user} for ${target.shown}: check the user and password in the URL`);
  if (c === 'ER_BAD_DB_ERROR') return say(`there is no database ${target.database} at ${target.shown}: check the database in the URL`);
  if (c === 'ETIMEDOUT' || c === 'PROTOCOL_SEQUENCE_TIMEOUT') {
    return say(
      `no answer from MySQL/MariaDB for ${target.shown} within ${timeoutMs / 1000} s: check the host and port of the URL, that the server runs there and that no firewall drops the connection (--connect-timeout gives it longer)`,
    );
  }
  if (c === 'ECONNREFUSED' || c === 'ENOTFOUND' || c === 'EHOSTUNREACH' || c === 'ENOENT') {
    return say(`cannot reach MySQL/MariaDB for ${target.shown} (${c}): check the URL and that the server runs there`);
  }
  return say(`cannot use ${target.shown}: ${c || (err instanceof Error ? err.message : String(err))}`);
}

/** The one line of a query that failed or took too long (what came from the server made printable). */
function queryError(err: unknown, target: SourceTarget, what: string, timeoutMs: number): VtsError {
  if (err instanceof VtsError) return err;
  const c = codeOf(err);
  const say = (m: string): VtsError => new VtsError('VTS_ERR_IMPORT_SOURCE', printableLine(m), { whole: true, cause: err });
  if (c === 'PROTOCOL_SEQUENCE_TIMEOUT') {
    return say(
      `${target.shown} did not answer reading ${what} within ${timeoutMs / 1000} s: check that server's load and locks, or give it longer with --query-timeout (or read less at once with --batch-size)`,
    );
  }
  const text = err instanceof Error ? err.message : String(err);
  return say(`reading ${what} from ${target.shown} failed: ${c ? `${c}: ` : ''}${text}: run the import again (it goes on from what it brought over)`);
}

const quote = (name: string): string => `\`${name.replace(/`/g, '``')}\``;

/**
 * The rows after `last` in the order of `key`, as `a > ? OR (a = ? AND (b > ? OR (b = ? AND …)))`:
 * MariaDB turns that into a range of the key's index. It does not for the shorter
 * `(a, b) > (?, ?)`, which scans the index from its start for every batch.
 */
export function rowsAfter(key: readonly string[], last: readonly unknown[]): { where: string; values: unknown[] } {
  const values: unknown[] = [];
  const from = (i: number): string => {
    const col = quote(key[i]!);
    values.push(last[i]);
    if (i === key.length - 1) return `${col} > ?`;
    const gt = `${col} > ?`;
    values.push(last[i]);
    return `(${gt} OR (${col} = ? AND ${from(i + 1)}))`;
  };
  return { where: from(0), values };
}

/** Checks that every table and column vts reads is there. */
async function checkSchema(c: Connection, target: SourceTarget, timeout: number): Promise<void> {
  const [rows] = await c.query<RowDataPacket[]>({
    sql: 'SELECT LOWER(TABLE_NAME) AS t, LOWER(COLUMN_NAME) AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()',
    timeout,
  });
  const columns = new Set(rows.map((r) => `${String(r.t)}.${String(r.c)}`));
  const tables = new Set(rows.map((r) => String(r.t)));
  const missingTables = Object.keys(REFERENCE_TABLES).filter((t) => !tables.has(t));
  if (missingTables.length === Object.keys(REFERENCE_TABLES).length) {
    throw new VtsError('VTS_ERR_IMPORT_SOURCE', `${target.shown} is not a reference server's database: it has none of its tables (ovms_owners, ovms_cars, …)`, { whole: true });
  }
  if (missingTables.length > 0) throw new VtsError('VTS_ERR_IMPORT_SOURCE', `${target.shown} is not a whole reference server's database: no table ${missingTables.join(', ')}`, { whole: true });
  const missing = Object.entries(REFERENCE_TABLES).flatMap(([t, cols]) => cols.filter((col) => !columns.has(`${t}.${col}`)).map((col) => `${t}.${col}`));
  if (missing.length > 0) throw new VtsError('VTS_ERR_IMPORT_SOURCE', `${target.shown} is not a reference server's database of the known schema: no column ${missing.join(', ')}`, { whole: true });
}

export interface ReferenceTimeouts {
  /** Connecting, the login included (default 10 s). */
  connectMs?: number;
  /** Each query: a count, a batch of rows (default 5 min). */
  queryMs?: number;
}

/**
 * Connects read-only and checks the schema. A connection that is not made within the connect
 * timeout, and a query that does not answer within the query timeout, are one-line errors that
 * say what to do.
 */
export async function openReference(url: string, timeouts: ReferenceTimeouts = {}): Promise<ReferenceSource> {
  const connectMs = timeouts.connectMs ?? CONNECT_TIMEOUT_MS;
  const timeout = timeouts.queryMs ?? QUERY_TIMEOUT_MS;
  const { options, target } = sourceOptions(url, process.env, connectMs);
  let c: Connection;
  try {
    c = await createConnection(options);
  } catch (err) {
    throw connectError(err, target, String(options.user), connectMs);
  }
  try {
    await c.query({ sql: 'SET SESSION TRANSACTION READ ONLY', timeout });
    await c.query({ sql: "SET time_zone = '+00:00'", timeout });
    await checkSchema(c, target, timeout);
  } catch (err) {
    c.destroy(); // a query may still run there (a timeout): not ended politely
    throw err instanceof VtsError ? err : queryError(err, target, 'its schema', timeout);
  }
  // a query that failed (one that timed out is still running there): the connection is dropped, not
  // ended politely (which would wait for that query)
  let broken = false;
  const failed = (err: unknown, what: string): VtsError => {
    broken = true;
    return queryError(err, target, what, timeout);
  };
  return {
    target,
    async count(table) {
      try {
        const [rows] = await c.query<RowDataPacket[]>({ sql: `SELECT COUNT(*) AS n FROM ${quote(table)}`, timeout });
        return Number(rows[0]?.n ?? 0);
      } catch (err) {
        throw failed(err, `the rows of ${table}`);
      }
    },
    async *batches(table, key, batch) {
      const cols = REFERENCE_TABLES[table].map(quote).join(', ');
      const order = key.map(quote).join(', ');
      let after: { where: string; values: unknown[] } | null = null;
      for (;;) {
        const where: string = after ? `WHERE ${after.where}` : '';
        let rows: RowDataPacket[];
        try {
          [rows] = await c.query<RowDataPacket[]>({ sql: `SELECT ${cols} FROM ${quote(table)} ${where} ORDER BY ${order} LIMIT ${Math.max(1, Math.floor(batch))}`, timeout }, after?.values ?? []);
        } catch (err) {
          throw failed(err, table);
        }
        if (rows.length === 0) return;
        yield rows;
        if (rows.length < batch) return;
        const last: RowDataPacket = rows[rows.length - 1]!;
        after = rowsAfter(key, key.map((k): unknown => last[k]));
      }
    },
    async close() {
      if (broken) c.destroy();
      else await c.end().catch(() => undefined);
    },
  };
}
