/**
 * The error catalogue: every error vts raises on purpose carries a stable code (VTS_ERR_*), so
 * that callers, logs and tests can tell them apart without parsing messages.
 */

export const ERRORS = {
  VTS_ERR_CONFIG: 'invalid configuration',
  VTS_ERR_DUPLICATE_USER: 'a user with that name exists already',
  VTS_ERR_UNKNOWN_USER: 'no such user',
  VTS_ERR_DUPLICATE_VEHICLE: 'a vehicle with that id exists already',
  VTS_ERR_UNKNOWN_VEHICLE: 'no such vehicle',
  VTS_ERR_USER_HAS_VEHICLES: 'the user still owns vehicles',
  VTS_ERR_INVALID_INPUT: 'invalid input',
  VTS_ERR_STORE_CLOSED: 'the store is closed',
  VTS_ERR_STORE_SCHEMA: 'the database was written by a newer vts',
  VTS_ERR_STORE_UNAVAILABLE: 'the database does not answer: writes are held until it does',
  VTS_ERR_LISTEN: 'a listener could not start',
  VTS_ERR_PORT_IN_USE: 'a port is in use by another program',
  VTS_ERR_PORT_DENIED: 'no permission to listen on a port',
  VTS_ERR_BIND_ADDRESS: 'the address to listen on is not one of this machine',
  VTS_ERR_DATA_DIR: 'the data directory cannot be used',
  VTS_ERR_NO_DATABASE: 'there is no database in the data directory',
  VTS_ERR_DATABASE: 'the database file cannot be used',
  VTS_ERR_TLS: 'TLS certificate or key could not be loaded',
  VTS_ERR_COMMAND_SYNTAX: 'invalid command',
  VTS_ERR_NOT_CONNECTED: 'vehicle not connected',
  VTS_ERR_COMMAND_TIMEOUT: 'the vehicle did not answer in time',
  VTS_ERR_QUEUE_FULL: 'too many commands are waiting for this vehicle',
  VTS_ERR_MQTT: 'the MQTT broker failed',
  VTS_ERR_SHUTTING_DOWN: 'the server is shutting down',
  VTS_ERR_BAD_REQUEST: 'malformed request',
  VTS_ERR_BODY_TOO_LARGE: 'request body too large',
  VTS_ERR_CONTENT_TYPE: 'unsupported content type',
  VTS_ERR_LOGIN_THROTTLED: 'too many failed logins',
  VTS_ERR_CHECKS_BUSY: 'too many password checks are waiting',
  VTS_ERR_CLUSTER: 'the cluster engine (Redis) cannot be used',
  VTS_ERR_PUSH_CONFIG: 'a push provider cannot be used with its settings',
  VTS_ERR_NOT_FOUND: 'no such thing',
  VTS_ERR_IMPORT_SOURCE: "the reference server's database cannot be read",
} as const;

export type ErrorCode = keyof typeof ERRORS;

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
    const message = detail ? (options?.whole ? detail : `${ERRORS[code]}: ${detail}`) : ERRORS[code];
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VtsError';
    this.code = code;
    this.detail = detail;
  }
}

export function isVtsError(err: unknown, code?: ErrorCode): err is VtsError {
  return err instanceof VtsError && (code === undefined || err.code === code);
}
