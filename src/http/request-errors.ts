/**
 * What a request answers when it fails outside its handler's own answers (a body that does not
 * parse, a bad URL, anything the error handler of app.ts catches). The client's mistakes are 4xx
 * with a fixed sentence (never the parser's words, which may quote the input), logged at debug;
 * anything else is the server's own failure: 500, logged with its stack at error level. The
 * statuses are the catalogue's (src/errors.ts).
 */
import { CATALOGUE, httpStatus, isVtsError, type ErrorCode } from '../errors.js';

export interface RequestFailure {
  status: number;
  /** The catalogue code (`VTS_ERR_INTERNAL` for a failure of the server). */
  error: ErrorCode;
  /** The sentence of the answer. */
  message: string;
  /** True when the request was at fault (4xx), or the server is away for a moment (503): logged at debug, without a stack. */
  client: boolean;
}

const client = (error: ErrorCode, message: string, status = httpStatus(error)): RequestFailure => ({ status, error, message, client: true });

/** The catalogue's words as the line of an answer (`request body too large` → `Request body too large`). */
const sentenceOf = (code: ErrorCode): string => CATALOGUE[code].message.charAt(0).toUpperCase() + CATALOGUE[code].message.slice(1);

/** Errors of fastify's body parsers and router, by their code. */
const FASTIFY_CODES: Readonly<Record<string, RequestFailure>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: client('VTS_ERR_BAD_REQUEST', 'Malformed JSON body'),
  FST_ERR_CTP_EMPTY_JSON_BODY: client('VTS_ERR_BAD_REQUEST', 'Malformed JSON body'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: client('VTS_ERR_BAD_REQUEST', 'Body size does not match Content-Length'),
  FST_ERR_BAD_URL: client('VTS_ERR_BAD_REQUEST', 'Malformed URL encoding'),
  FST_ERR_INVALID_URL: client('VTS_ERR_BAD_REQUEST', 'Malformed URL'),
};

export const BODY_TOO_LARGE = client('VTS_ERR_BODY_TOO_LARGE', sentenceOf('VTS_ERR_BODY_TOO_LARGE'));
export const UNSUPPORTED_TYPE = client('VTS_ERR_CONTENT_TYPE', sentenceOf('VTS_ERR_CONTENT_TYPE'));

/** The request's own failures, which answer with their detail (a parser's words never reach one). */
const CLIENT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['VTS_ERR_BAD_REQUEST', 'VTS_ERR_BODY_TOO_LARGE', 'VTS_ERR_CONTENT_TYPE']);

/**
 * A moment's outage, said once in the log by whoever saw it: the cluster's Redis is out of reach,
 * or the database is away (what is held is not shown). The client tries again later.
 */
const OUTAGE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['VTS_ERR_CLUSTER', 'VTS_ERR_STORE_UNAVAILABLE']);
const OUTAGE_TEXT = 'Service unavailable for a moment: try again';

export function requestFailure(err: unknown): RequestFailure {
  if (isVtsError(err)) {
    if (CLIENT_CODES.has(err.code)) return client(err.code, err.detail ?? err.message);
    if (OUTAGE_CODES.has(err.code)) return client(err.code, OUTAGE_TEXT);
  }
  const e = (err ?? {}) as { code?: unknown; statusCode?: unknown };
  const known = typeof e.code === 'string' ? FASTIFY_CODES[e.code] : undefined;
  if (known) return known;
  const status = typeof e.statusCode === 'number' && Number.isInteger(e.statusCode) ? e.statusCode : 500;
  if (status === BODY_TOO_LARGE.status) return BODY_TOO_LARGE;
  if (status === UNSUPPORTED_TYPE.status) return UNSUPPORTED_TYPE;
  if (status >= 400 && status < 500) return client('VTS_ERR_BAD_REQUEST', 'Bad request', status);
  return { status: status > 500 && status < 600 ? status : 500, error: 'VTS_ERR_INTERNAL', message: sentenceOf('VTS_ERR_INTERNAL'), client: false };
}
