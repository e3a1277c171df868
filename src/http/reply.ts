/**
 * Responses as the reference server shapes them (docs/protocol/http-api-v2.md §1, §2.1): its reason phrases,
 * `Cache-Control: max-age=0`, `Expires` equal to `Date`, CORS on every response, plain-text
 * bodies ending in a newline, JSON with sorted keys and a trailing newline.
 */
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { canonicalJson, type JsonValue } from '../core/records/json.js';
import { httpStatus, type ErrorCode } from '../errors.js';

/** REF's reason phrases (its `Unrecongised` typo is not copied: see docs/compatibility.md). */
const REASONS: Record<number, string> = {
  200: 'Ok',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'not found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too many requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function status(reply: FastifyReply, code: number, reason?: string): FastifyReply {
  reply.code(code);
  reply.raw.statusMessage = reason ?? REASONS[code] ?? '';
  return reply;
}

export function sendText(reply: FastifyReply, code: number, text: string, reason?: string): FastifyReply {
  return status(reply, code, reason).header('content-type', 'text/plain').send(text.endsWith('\n') || text === '' ? text : text + '\n');
}

/** Fastify appends `; charset=utf-8` to a JSON type sent with a string; REF's is bare. */
export const FASTIFY_JSON_TYPE = 'application/json; charset=utf-8';

/**
 * `Content-Type: application/json` exactly, as REF sends it (the onSend hook of app.ts removes the
 * charset that fastify adds). A string body, not a Buffer: node then writes the headers and the
 * body in one write.
 */
export function sendJsonText(reply: FastifyReply, code: number, text: string, reason?: string): FastifyReply {
  return status(reply, code, reason).header('content-type', 'application/json').send(text);
}

export function sendJson(reply: FastifyReply, code: number, body: JsonValue, reason?: string): FastifyReply {
  return sendJsonText(reply, code, canonicalJson(body), reason);
}

/** A JSON body written as the stream gives it (chunked: a long answer never held whole). */
export function sendJsonStream(reply: FastifyReply, code: number, body: Readable, reason?: string): FastifyReply {
  return status(reply, code, reason).header('content-type', 'application/json').send(body);
}

// The common error answers (docs/protocol/http-api-v2.md §2.1)
export const unrecognised = (r: FastifyReply) => sendText(r, 404, 'Unrecognised API call', 'Unrecognised API call');
export const notFound = (r: FastifyReply) => sendText(r, 404, 'not found');
export const unauthorized = (r: FastifyReply) => sendText(r, 401, 'Authentication failed');
export const insufficientRights = (r: FastifyReply) => sendText(r, 403, 'Insufficient rights');
export const forbidden = (r: FastifyReply) => sendText(r, 403, 'Forbidden');
export const paranoid = (r: FastifyReply) => sendText(r, 502, 'Paranoid vehicles not supported by api');
export const badRequest = (r: FastifyReply, why: string) => sendText(r, 400, why);

/**
 * How a call answers its errors: `text`, REF's one line of plain text (the API v2, `/mqapi`, the
 * custom API, everything outside `/api`), or `json`, `{"error","message"}` (the command API and
 * the web API: docs/web-api.md).
 */
export type ErrorStyle = 'text' | 'json';

/** An error as an answer tells it; a VtsError is one (its code and whole message). */
export interface ErrorReply {
  code: ErrorCode;
  message: string;
  /**
   * The status when it is not the catalogue's (src/errors.ts): VTS_ERR_AUTH to a login that may
   * not do this is 403; a request failure of fastify keeps fastify's status.
   */
  status?: number;
}

/**
 * The one writer of an error answer with a code: `{"error": code, "message"}` (JSON, the default),
 * or the message as the line of a text call; the status is the catalogue's for the code.
 */
export function sendError(reply: FastifyReply, err: ErrorReply, style: ErrorStyle = 'json'): FastifyReply {
  const status = err.status ?? httpStatus(err.code);
  return style === 'json' ? sendJson(reply, status, { error: err.code, message: err.message }) : sendText(reply, status, err.message);
}

let dateSecond = 0;
let dateText = '';
/** The HTTP date of now, computed once a second. */
export function httpDate(nowMs = Date.now()): string {
  const second = Math.floor(nowMs / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(second * 1000).toUTCString();
  }
  return dateText;
}
