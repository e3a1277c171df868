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
  VTS_ERR_LISTEN: 'a listener could not start',
  VTS_ERR_TLS: 'TLS certificate or key could not be loaded',
  VTS_ERR_COMMAND_SYNTAX: 'invalid command',
  VTS_ERR_NOT_CONNECTED: 'vehicle not connected',
  VTS_ERR_COMMAND_TIMEOUT: 'the vehicle did not answer in time',
  VTS_ERR_QUEUE_FULL: 'too many commands are waiting for this vehicle',
  VTS_ERR_MQTT: 'the MQTT broker failed',
} as const;

export type ErrorCode = keyof typeof ERRORS;

export class VtsError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, detail?: string, options?: { cause?: unknown }) {
    super(detail ? `${ERRORS[code]}: ${detail}` : ERRORS[code], options);
    this.name = 'VtsError';
    this.code = code;
  }
}

export function isVtsError(err: unknown, code?: ErrorCode): err is VtsError {
  return err instanceof VtsError && (code === undefined || err.code === code);
}
