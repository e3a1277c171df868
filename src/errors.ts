/**
 * The error catalogue: every error vts raises on purpose carries a stable code (VTS_ERR_*), so
 * that callers, logs and tests can tell them apart without parsing messages. Like fastify's
 * `createError(code, message, statusCode)`, each code is described once, here, with all it means
 * wherever it goes out:
 *
 * - `message`: the few words every VtsError of the code starts with (its detail follows);
 * - `status`: the HTTP status of an answer that carries the code (src/http/reply.ts `sendError`);
 * - `mp`: the text of the failed answer `c<fn>,1,<text>` an MP client gets for its command;
 * - `audit`: the result the command audit records.
 *
 * `mp` and `audit` belong to the outcomes of a command (it could not be run, or got no answer);
 * a command that fails for any other reason is, to whoever asked, the server's own failure: it
 * answers and is audited as `VTS_ERR_INTERNAL` (`commandFailure` below), with its own code and
 * message. An error that escapes a request's handler keeps its status only when it is the
 * request's own failure (src/http/request-errors.ts); any other is a 500.
 */

export interface ErrorEntry {
  readonly message: string;
  readonly status: number;
  readonly mp?: string;
  readonly audit?: string;
}

const entry = (message: string, status: number, command?: { mp?: string; audit: string }): ErrorEntry => ({ message, status, ...command });

export const CATALOGUE = {
  // configuration, listeners, files (vts serve and the command line)
  VTS_ERR_CONFIG: entry('invalid configuration', 500),
  VTS_ERR_LISTEN: entry('a listener could not start', 500),
  VTS_ERR_PORT_IN_USE: entry('a port is in use by another program', 500),
  VTS_ERR_PORT_DENIED: entry('no permission to listen on a port', 500),
  VTS_ERR_BIND_ADDRESS: entry('the address to listen on is not one of this machine', 500),
  VTS_ERR_DATA_DIR: entry('the data directory cannot be used', 500),
  VTS_ERR_TLS: entry('TLS certificate or key could not be loaded', 500),
  VTS_ERR_PUSH_CONFIG: entry('a push provider cannot be used with its settings', 500),
  VTS_ERR_MQTT: entry('the MQTT broker failed', 500),
  VTS_ERR_CLUSTER: entry('the cluster engine (Redis) cannot be used', 503),
  VTS_ERR_IMPORT_SOURCE: entry("the reference server's database cannot be read", 500),

  // accounts and vehicles
  VTS_ERR_DUPLICATE_USER: entry('a user with that name exists already', 409),
  VTS_ERR_UNKNOWN_USER: entry('no such user', 404),
  VTS_ERR_DUPLICATE_VEHICLE: entry('a vehicle with that id exists already', 409),
  // 403: the web API does not tell another owner's vehicle from one that does not exist
  VTS_ERR_UNKNOWN_VEHICLE: entry('no such vehicle', 403),
  VTS_ERR_USER_HAS_VEHICLES: entry('the user still owns vehicles', 409),
  VTS_ERR_NOT_FOUND: entry('no such thing', 404),
  VTS_ERR_INVALID_INPUT: entry('invalid input', 400),
  // ABRP live telemetry needs the operator's --abrp-api-key
  VTS_ERR_ABRP_OFF: entry('ABRP is not configured on this server', 503),

  // the store
  VTS_ERR_STORE_CLOSED: entry('the store is closed', 503),
  VTS_ERR_STORE_SCHEMA: entry('the database was written by a newer vts', 500),
  VTS_ERR_STORE_UNAVAILABLE: entry('the database does not answer: writes are held until it does', 503),
  VTS_ERR_NO_DATABASE: entry('there is no database in the data directory', 500),
  VTS_ERR_DATABASE: entry('the database file cannot be used', 500),

  // the outcomes of a command
  VTS_ERR_COMMAND_SYNTAX: entry('invalid command', 400, { audit: 'invalid' }),
  VTS_ERR_NOT_CONNECTED: entry('vehicle not connected', 409, { mp: 'Vehicle not connected', audit: 'not-connected' }),
  VTS_ERR_COMMAND_TIMEOUT: entry('the vehicle did not answer in time', 504, { mp: 'Command timed out', audit: 'timeout' }),
  VTS_ERR_QUEUE_FULL: entry('too many commands are waiting for this vehicle', 503, { mp: 'Too many commands waiting', audit: 'queue-full' }),
  VTS_ERR_SHUTTING_DOWN: entry('the server is shutting down', 503, { mp: 'Server shutting down', audit: 'shutting-down' }),
  VTS_ERR_UNKNOWN_JOB: entry('no such command job', 404),
  // any failure that is not the request's nor the command's own: the server's
  VTS_ERR_INTERNAL: entry('internal error', 500, { mp: 'Server error', audit: 'error' }),

  // HTTP requests and logins
  VTS_ERR_BAD_REQUEST: entry('malformed request', 400),
  VTS_ERR_BODY_TOO_LARGE: entry('request body too large', 413),
  VTS_ERR_CONTENT_TYPE: entry('unsupported content type', 415),
  // 401 without a login; 403 when a login may not do this (a wrong current password, an API token)
  VTS_ERR_AUTH: entry('authentication failed', 401),
  VTS_ERR_CSRF: entry('missing or wrong CSRF token', 403),
  VTS_ERR_FORBIDDEN: entry('this login may not do that', 403),
  VTS_ERR_LOGIN_THROTTLED: entry('too many failed logins', 429),
  VTS_ERR_CHECKS_BUSY: entry('too many password checks are waiting', 429),
  // accounts (issue 31, docs/accounts.md)
  VTS_ERR_UNVERIFIED: entry('the mail address of this account is not verified yet: follow the link in the mail', 403),
  VTS_ERR_ACCOUNT_DISABLED: entry('this account is disabled: ask the operator', 403),
  VTS_ERR_TOTP_REQUIRED: entry('a code of the second factor is needed', 401),
  VTS_ERR_TOTP_INVALID: entry('wrong or used code of the second factor', 401),
  VTS_ERR_PASSKEY_INVALID: entry('the passkey could not be verified', 401),
  VTS_ERR_CONFLICT: entry('not possible in the present state', 409),
  VTS_ERR_REGISTRATION_OFF: entry('this server does not take sign-ups', 403),
  VTS_ERR_INVITE_INVALID: entry('unknown, used or expired invitation code', 400),
  VTS_ERR_TOKEN_INVALID: entry('the link is unknown, used or expired', 400),
  VTS_ERR_MAIL_OFF: entry('this server cannot send mail (no --smtp-url)', 503),
  VTS_ERR_VIEW_ONLY: entry('this vehicle is shared with you to view only', 403),
} satisfies Record<`VTS_ERR_${string}`, ErrorEntry>;

export type ErrorCode = keyof typeof CATALOGUE;

/** The message of each code (the catalogue's `message`). */
export const ERRORS: { readonly [C in ErrorCode]: string } = Object.freeze(
  Object.fromEntries(Object.entries(CATALOGUE).map(([code, e]) => [code, e.message])) as { [C in ErrorCode]: string },
);

/** Whether a string (from another node, a client) is a code of this catalogue. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(CATALOGUE, code);
}

/** The HTTP status of an answer with this code. */
export function httpStatus(code: ErrorCode): number {
  return CATALOGUE[code].status;
}

export interface VtsErrorOptions {
  cause?: unknown;
  /**
   * The detail is a whole sentence that says what happened and what to do (`port 6868 (HTTP API)
   * is in use by another program: …`): the message is the detail alone, without the catalogue text.
   */
  whole?: boolean;
}

export class VtsError extends Error {
  readonly code: ErrorCode;
  /** The specific part of the message (without the catalogue text), when one was given. */
  readonly detail: string | undefined;

  constructor(code: ErrorCode, detail?: string, options?: VtsErrorOptions) {
    const base = CATALOGUE[code].message;
    const message = detail ? (options?.whole ? detail : `${base}: ${detail}`) : base;
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VtsError';
    this.code = code;
    this.detail = detail;
  }
}

export function isVtsError(err: unknown, code?: ErrorCode): err is VtsError {
  return err instanceof VtsError && (code === undefined || err.code === code);
}

/** How a failed command is told to whoever asked (HTTP, an MP client, an async job) and audited. */
export interface CommandFailure {
  /** The error's own code, `VTS_ERR_INTERNAL` for an error that is not a VtsError. */
  code: ErrorCode;
  /** The error's own message; a foreign error's words are not shown. */
  message: string;
  status: number;
  mp: string;
  audit: string;
}

const INTERNAL = CATALOGUE.VTS_ERR_INTERNAL as Required<ErrorEntry>;

/**
 * A command's own outcomes (the codes with an audit label) answer with their entry; any other
 * failure with the internal error's status, MP text and audit label.
 */
export function commandFailure(err: unknown): CommandFailure {
  if (!isVtsError(err)) return { code: 'VTS_ERR_INTERNAL', message: INTERNAL.message, status: INTERNAL.status, mp: INTERNAL.mp, audit: INTERNAL.audit };
  const e: ErrorEntry = CATALOGUE[err.code];
  const outcome = e.audit === undefined ? INTERNAL : e;
  return { code: err.code, message: err.message, status: outcome.status, mp: outcome.mp ?? INTERNAL.mp, audit: outcome.audit ?? INTERNAL.audit };
}
