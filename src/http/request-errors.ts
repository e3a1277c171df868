/**
 * What a request answers when it fails outside its handler's own answers (a body that does not
 * parse, a bad URL, anything the error handler of app.ts catches). The client's mistakes are 4xx
 * with a fixed sentence (never the parser's words, which may quote the input), logged at debug;
 * anything else is the server's own failure: 500, logged with its stack at error level.
 */
import { isVtsError, type ErrorCode } from '../errors.js';

export interface RequestFailure {
  status: number;
  /** The catalogue code (`VTS_ERR_INTERNAL` for a failure of the server). */
  error: ErrorCode | 'VTS_ERR_INTERNAL';
  /** The sentence of the answer. */
  message: string;
  /** True when the request was at fault (4xx): logged at debug, without a stack. */
  client: boolean;
}

const client = (status: number, error: ErrorCode, message: string): RequestFailure => ({ status, error, message, client: true });

/** Errors of fastify's body parsers and router, by their code. */
const FASTIFY_CODES: Readonly<Record<string, RequestFailure>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: client(400, 'VTS_ERR_BAD_REQUEST', 'Malformed JSON body'),
  FST_ERR_CTP_EMPTY_JSON_BODY: client(400, 'VTS_ERR_BAD_REQUEST', 'Malformed JSON body'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: client(400, 'VTS_ERR_BAD_REQUEST', 'Body size does not match Content-Length'),
  FST_ERR_BAD_URL: client(400, 'VTS_ERR_BAD_REQUEST', 'Malformed URL encoding'),
  FST_ERR_INVALID_URL: client(400, 'VTS_ERR_BAD_REQUEST', 'Malformed URL'),
};

export const BODY_TOO_LARGE = client(413, 'VTS_ERR_BODY_TOO_LARGE', 'Request body too large');
export const UNSUPPORTED_TYPE = client(415, 'VTS_ERR_CONTENT_TYPE', 'Unsupported content type');

export function requestFailure(err: unknown): RequestFailure {
  if (isVtsError(err)) {
    const message = err.detail ?? err.message;
    if (err.code === 'VTS_ERR_BAD_REQUEST') return client(400, err.code, message);
    if (err.code === 'VTS_ERR_BODY_TOO_LARGE') return client(413, err.code, message);
    if (err.code === 'VTS_ERR_CONTENT_TYPE') return client(415, err.code, message);
    // the cluster's Redis is out of reach (said once in the log by the cluster): try again later
    if (err.code === 'VTS_ERR_CLUSTER') return { status: 503, error: err.code, message: 'Service unavailable for a moment: try again', client: true };
    // the database is away (said once in the log by the store): what is held is not shown
    if (err.code === 'VTS_ERR_STORE_UNAVAILABLE') return { status: 503, error: err.code, message: 'Service unavailable for a moment: try again', client: true };
  }
  const e = (err ?? {}) as { code?: unknown; statusCode?: unknown };
  const known = typeof e.code === 'string' ? FASTIFY_CODES[e.code] : undefined;
  if (known) return known;
  const status = typeof e.statusCode === 'number' && Number.isInteger(e.statusCode) ? e.statusCode : 500;
  if (status === 413) return BODY_TOO_LARGE;
  if (status === 415) return UNSUPPORTED_TYPE;
  if (status >= 400 && status < 500) return client(status, 'VTS_ERR_BAD_REQUEST', 'Bad request');
  return { status: status > 500 && status < 600 ? status : 500, error: 'VTS_ERR_INTERNAL', message: 'Internal error', client: false };
}
