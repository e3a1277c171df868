/** How the command service's errors answer over HTTP. */
import { isVtsError } from '../errors.js';

export interface HttpFailure {
  status: number;
  code: string;
  message: string;
}

/** 400 bad input, 409 not connected, 503 queue full or shutting down, 504 timeout; anything else is a 500. */
export function commandFailure(err: unknown): HttpFailure {
  if (isVtsError(err)) {
    const status =
      err.code === 'VTS_ERR_COMMAND_SYNTAX'
        ? 400
        : err.code === 'VTS_ERR_NOT_CONNECTED'
          ? 409
          : err.code === 'VTS_ERR_QUEUE_FULL' || err.code === 'VTS_ERR_SHUTTING_DOWN'
            ? 503
            : err.code === 'VTS_ERR_COMMAND_TIMEOUT'
              ? 504
              : 500;
    return { status, code: err.code, message: err.message };
  }
  return { status: 500, code: 'VTS_ERR_INTERNAL', message: 'internal error' };
}
