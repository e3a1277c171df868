/**
 * The PostgreSQL database as vts shows it (its URL without the password), the one-line errors
 * of the edge (server unreachable, login refused, no such database), which errors of a commit
 * are worth another try, and the constraint violations the store turns into its own errors.
 */
import { VtsError, isVtsError } from '../../errors.js';

/** Where the database is, for messages: never the password. */
export interface PgTarget {
  /** `postgres://user@host:port/db`: the URL without the password and the query. */
  shown: string;
  host: string;
  port: string;
  database: string;
  user: string;
  /** The password, to scrub from texts that are not ours (never shown). */
  secret: string;
}

const CHECK = 'check --database (or VTS_DATABASE)';

/** Parses a `postgres://` or `postgresql://` URL; a malformed one is VTS_ERR_CONFIG (without the URL). */
export function pgTarget(url: string): PgTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new VtsError('VTS_ERR_CONFIG', `--database is not a valid URL (postgres://user:password@host:port/database)`);
  }
  const user = decodeURIComponent(u.username) || process.env.PGUSER || process.env.USER || 'postgres';
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost';
  const port = u.port || '5432';
  const database = decodeURIComponent(u.pathname.slice(1)) || user;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    shown: `postgres://${encodeURIComponent(user)}@${shownHost}:${port}/${encodeURIComponent(database)}`,
    host,
    port,
    database,
    user,
    secret: decodeURIComponent(u.password),
  };
}

function code(err: unknown): string {
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === 'string' ? c : '';
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The error's own text with the password cut out (should a driver ever echo it). */
function text(err: unknown, t: PgTarget): string {
  const message = messageOf(err);
  return t.secret.length >= 4 ? message.split(t.secret).join('***') : message;
}

/** Errors that mean the server cannot be reached (or went away). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * The driver's own texts for a connection that went away or stays silent: closed, not connected
 * within the connect timeout (a client's, or the pool's wait for one), no answer to a statement
 * within the query timeout (--database-timeout), or a client broken by an earlier error.
 */
const GONE = /^Connection terminated|timeout expired|connection timeout|^Query read timeout|timeout exceeded when trying to connect|is not queryable/i;

function unreachable(err: unknown): boolean {
  return UNREACHABLE.has(code(err)) || GONE.test(messageOf(err));
}

/** Whether a statement failed for want of an answer within the query timeout (pg closes its connection). */
export function pgSilent(err: unknown): boolean {
  if (isVtsError(err)) return err.cause !== undefined && pgSilent(err.cause);
  return /^Query read timeout/.test(messageOf(err));
}

/**
 * Whether the error says the database is unavailable (unreachable, gone, restarting, out of
 * connections, or not answering in time), rather than something about the statement or its data.
 */
export function pgUnavailable(err: unknown): boolean {
  if (isVtsError(err)) return err.cause !== undefined && pgUnavailable(err.cause);
  const c = code(err);
  return unreachable(err) || c.startsWith('08') || c === '53300' || c === '57014' || c === '57P01' || c === '57P02' || c === '57P03';
}

/**
 * One line for an error met opening or using the database at `t`, naming it (never the
 * password) and what to do. VtsErrors and errors that are not about the database come back as
 * they are.
 */
export function describePgError(err: unknown, t: PgTarget): unknown {
  if (isVtsError(err)) return err;
  const c = code(err);
  const why = `${text(err, t)}${c ? ` (${c})` : ''}`;
  const say = (line: string): VtsError => new VtsError('VTS_ERR_DATABASE', line, { whole: true, cause: err });
  const server = `PostgreSQL at ${t.host}:${t.port}`;
  if (unreachable(err)) return say(`cannot reach ${server} for ${t.shown}: ${why}: start PostgreSQL there, or ${CHECK}`);
  if (c === '28P01' || c === '28000') {
    return say(`${server} refused the login of user ${t.user} for ${t.shown}: ${why}: ${CHECK} (user and password)`);
  }
  if (c === '3D000') return say(`the database ${t.database} does not exist on ${server} (${t.shown}): create it (createdb ${t.database}), or ${CHECK}`);
  if (c === '42501') return say(`user ${t.user} lacks a right on ${t.shown}: ${why}: grant it, or ${CHECK}`);
  if (c === '57P03' || c === '53300') return say(`${server} takes no connection now (${t.shown}): ${why}: try again later`);
  if (c.startsWith('08') || /SSL|certificate/i.test(why)) return say(`cannot connect to ${t.shown}: ${why}: ${CHECK}`);
  if (c.startsWith('28')) return say(`${server} refused the login for ${t.shown}: ${why}: ${CHECK}`);
  return err;
}

/**
 * Whether a failed commit may succeed when tried again: the server went away or restarts
 * (connection errors, 57P01…), a serialization failure or deadlock with another node, a lock
 * timeout or a statement cancelled by the statement timeout, too many connections, a full disk. A constraint, a type or a schema error would fail
 * the same way again.
 */
export function pgRetryable(err: unknown): boolean {
  const c = code(err);
  return (
    unreachable(err) ||
    c.startsWith('08') ||
    c.startsWith('53') ||
    c === '40001' ||
    c === '40P01' ||
    c === '55P03' ||
    c === '57014' ||
    c === '57P01' ||
    c === '57P02' ||
    c === '57P03' ||
    c === '58030'
  );
}

/** A unique index refused the row (a name or an id taken). */
export const isUniqueViolation = (err: unknown): boolean => code(err) === '23505';

/** A foreign key refused the row (its owner or vehicle is gone), or the removal of a row still referred to. */
export const isForeignKeyViolation = (err: unknown): boolean => code(err) === '23503';
