/**
 * How the command service's errors answer over HTTP: the catalogue's status of a command's own
 * outcome (400 invalid, 409 not connected, 503 queue full or shutting down, 504 timeout), a 500
 * for anything else (src/errors.ts `commandFailure`).
 */
export { commandFailure } from '../errors.js';
