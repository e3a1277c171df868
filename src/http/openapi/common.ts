/**
 * Building blocks of the OpenAPI document: references, the error bodies every route shares, and
 * the answers of the `/api` hall (src/http/api-hall.ts) that come before a handler: 400 for a
 * parameter or body it cannot read, 401, 403 (rights, CSRF), 429 (login throttle, rate limit), 503
 * (a cluster's Redis out of reach).
 */
import type { Header, Operation, Parameter, Reference, RequestBody, Response, Schema, SecurityRequirement } from './types.js';

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const responseRef = (name: string): Reference => ({ $ref: `#/components/responses/${name}` });
export const parameterRef = (name: string): Reference => ({ $ref: `#/components/parameters/${name}` });
export const headerRef = (name: string): Reference => ({ $ref: `#/components/headers/${name}` });

/** `YYYY-MM-DD HH:MM:SS`, UTC (the reference's DATETIME text). */
export const UTC_TIME: Schema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$', examples: ['2026-11-22 02:13:38'] };
/** Epoch seconds. */
/** An object with exactly these keys, all required. */
export const exact = (description: string, properties: Record<string, Schema>): Schema => ({
  type: 'object',
  description,
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

export const EPOCH: Schema = { type: 'integer', minimum: 0, examples: [1767225600] };
export const NULLABLE_EPOCH: Schema = { type: ['integer', 'null'], minimum: 0 };
/** A field of a car message: the text as the car sent it, null when the message ended before it. */
export const CAR_FIELD: Schema = { type: ['string', 'null'] };
/** A plain-text line of the reference: the text and a newline. */
export const textLine = (text: string): Schema => ({ type: 'string', const: `${text}\n` });
/** Any one line of text ending in a newline. */
export const ANY_LINE: Schema = { type: 'string', pattern: '\\n$' };

/** The user logins of `/api` (docs/protocol/http-api-v2.md §3.1): a password or a token with the user name, or the cookie. */
export const USER_LOGIN: SecurityRequirement[] = [{ username: [], password: [] }, { username: [], apiToken: [] }, { sessionCookie: [] }];
/** No authentication. */
export const NO_LOGIN: SecurityRequirement[] = [];
/** The custom API: the vehicle id (`fn.vehicleid`, a parameter) and its server password. */
export const CAR_LOGIN: SecurityRequirement[] = [{ carPassword: [] }];

export const text = (description: string, schema: Schema = ANY_LINE, headers?: Response['headers']): Response => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'text/plain': { schema } },
});

export const json = (description: string, schema: Schema, headers?: Response['headers']): Response => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema } },
});

/** An RFC 4180 CSV download whose header row starts with `head` (a regular expression). */
export const csv = (head: string): Schema => ({ type: 'string', pattern: `^${head}`, description: 'RFC 4180, CRLF line ends, `text/csv; charset=utf-8`.' });

/** The 413 of a CSV download of too many records (src/http/records-csv.ts). */
export const TOO_MANY_RECORDS = text('More than 100,000 records: fetch them in parts with `since` (`fn.since`).', { type: 'string', pattern: '^More than \\d+ records' });

/** `{"error":"VTS_ERR_…","message":"…"}` of the given codes. */
export const jsonError = (codes: readonly string[]): Schema => ({
  allOf: [ref('ApiError')],
  properties: { error: { enum: [...codes] } },
});

/** A JSON error answer with its description and the codes it may carry. */
export const jsonErrorResponse = (description: string, codes: readonly string[]): Response => json(description, jsonError(codes));

/** The `forbidden` of a call on one of the caller's vehicles: another owner's and an unknown one answer alike. */
export const NOT_YOURS = { json: ['VTS_ERR_UNKNOWN_VEHICLE'], why: "the vehicle is not one of the caller's, or unknown (`VTS_ERR_UNKNOWN_VEHICLE`: the answer does not tell which)" };

/** How a call answers the errors of the dispatcher and the body parsers (src/http/reply.ts `ErrorStyle`). */
export type ErrorStyle = 'text' | 'json';

export interface ErrorOptions {
  style: ErrorStyle;
  /** Authenticated by a user login (the dispatcher's 401, 403 rights and CSRF, 429). */
  login?: boolean;
  /** The `x-vts-rights` of the call: a caller without one of them gets 403 `Insufficient rights`. */
  rights?: readonly string[];
  /** POST, PUT, DELETE: a web session's cookie needs `X-CSRF-Token`; POST and PUT read a body. */
  method?: string;
  /** The handler's own 403 answers, beside the dispatcher's (e.g. `Forbidden` for another owner's vehicle). */
  forbidden?: { text?: readonly string[]; json?: readonly string[]; why: string };
}

/** Content that is text for `text` calls and JSON for `json` calls (the request failures of app.ts). */
function styled(style: ErrorStyle, codes: readonly string[]): Response['content'] {
  return style === 'json' ? { 'text/plain': { schema: ANY_LINE }, 'application/json': { schema: jsonError(codes) } } : { 'text/plain': { schema: ANY_LINE } };
}

/** The error answers of a call: 400, 401, 403, 413, 415, 429, 503 as they apply. */
export function errorResponses(o: ErrorOptions): Record<string, Response | Reference> {
  const out: Record<string, Response | Reference> = {};
  const body = o.method === 'post' || o.method === 'put';
  out['400'] = {
    description:
      'A parameter longer than 4096 characters, a path that does not decode (one line of text)' +
      (body ? ', or a body that does not parse (text, or `{"error","message"}` for the calls that answer JSON)' : '') +
      '.',
    content: styled(o.style, ['VTS_ERR_BAD_REQUEST']),
  };
  if (o.login) out['401'] = responseRef('Unauthorized');
  const stateChanging = o.login && (o.method === 'post' || o.method === 'put' || o.method === 'delete');
  const forbiddenText = [...(o.rights ? ['Insufficient rights'] : []), ...(o.forbidden?.text ?? [])];
  const forbiddenJson = [...(stateChanging ? ['VTS_ERR_CSRF'] : []), ...(o.forbidden?.json ?? [])];
  if (forbiddenText.length + forbiddenJson.length > 0) {
    const why = [
      o.rights ? `the login has none of the rights ${o.rights.map((r) => `\`${r}\``).join(', ')} (\`Insufficient rights\`)` : '',
      stateChanging ? 'a web session\'s cookie came without its `X-CSRF-Token` (`{"error":"VTS_ERR_CSRF"}`)' : '',
      o.forbidden?.why ?? '',
    ].filter((w) => w !== '');
    const content: Response['content'] = {};
    if (forbiddenText.length > 0) content['text/plain'] = { schema: { type: 'string', enum: forbiddenText.map((t) => `${t}\n`) } };
    if (forbiddenJson.length > 0) content['application/json'] = { schema: jsonError(forbiddenJson) };
    out['403'] = { description: `Forbidden: ${why.join('; ')}.`, content };
  }
  if (body) {
    out['413'] = { description: 'The body is larger than the body limit (64 KiB by default) or has too many form fields.', content: styled(o.style, ['VTS_ERR_BODY_TOO_LARGE']) };
    out['415'] = { description: 'A body of a content type other than JSON, urlencoded or multipart form.', content: styled(o.style, ['VTS_ERR_CONTENT_TYPE']) };
  }
  out['429'] = responseRef(o.login ? 'TooManyLogins' : 'TooManyRequests');
  out['503'] = { description: "In a cluster: the cluster's Redis is out of reach for a moment; try again.", content: styled(o.style, ['VTS_ERR_CLUSTER']) };
  return out;
}

/** The vehicle's path parameter, and the web session's CSRF header. */
export const PARAMETERS: Record<string, Parameter> = {
  VehicleId: {
    name: 'vehicleId',
    in: 'path',
    required: true,
    description: 'A vehicle id of the caller (compared without regard to case).',
    schema: { type: 'string', minLength: 1, maxLength: 32 },
    examples: { demo: { value: 'DEMO1' } },
  },
  CsrfToken: {
    name: 'X-CSRF-Token',
    in: 'header',
    required: false,
    description: 'Required when the call is authenticated by the cookie of a web session (`POST /api/session`): its `csrf`.',
    schema: { type: 'string' },
  },
};

export const HEADERS: Record<string, Header> = {
  RetryAfter: { description: 'Seconds to wait before the next attempt.', schema: { type: 'integer', minimum: 1 } },
  ContentDisposition: {
    description: '`attachment; filename="<ID>-<type>[+<type>…].csv"` (other characters than letters, digits, `.`, `_`, `+`, `-` become `_`).',
    schema: { type: 'string', pattern: '^attachment; filename="[A-Za-z0-9._+-]+\\.csv"$' },
  },
};

export const RESPONSES: Record<string, Response> = {
  Unauthorized: text('No credentials, wrong ones, a token whose permit is `none`, or a session that ended.', textLine('Authentication failed')),
  TooManyLogins: {
    description:
      'Too many failed logins (README "Security": `Retry-After` and one line of text), or this address is over the request rate ' +
      'limit (held `--rate-limit-delay` seconds, then an empty body).',
    headers: { 'Retry-After': headerRef('RetryAfter') },
    content: { 'text/plain': { schema: { type: 'string', pattern: '^(|Too many failed logins: try again in \\d+ s\\n)$' } } },
  },
  TooManyRequests: text('This address is over the request rate limit: held `--rate-limit-delay` seconds, then an empty body.', { type: 'string', const: '' }),
  Paranoid: text('The stored record is paranoid (end-to-end encrypted): the API cannot read it.', textLine('Paranoid vehicles not supported by api')),
  NotFound: text('Outside `/api` and `/mqapi`: no such path.', textLine('not found')),
  Unrecognised: text('No such call (method and first path segment) under `/api`, or a method other than POST on `/mqapi`.', textLine('Unrecognised API call')),
};

/** Adds the CSRF header to a state-changing operation of a user login. */
export function withCsrf(op: Operation): Operation {
  return { ...op, parameters: [...(op.parameters ?? []), parameterRef('CsrfToken')] };
}

/** Adds `extra` to `base`: a status in both gets the media types of both (a schema in both: either). */
export function mergeResponses(base: Record<string, Response | Reference>, extra: Record<string, Response | Reference>): Record<string, Response | Reference> {
  const out = { ...base };
  for (const [code, r] of Object.entries(extra)) {
    const had = out[code];
    if (!had || '$ref' in had || '$ref' in r) {
      out[code] = r;
      continue;
    }
    const content: Response['content'] = { ...had.content };
    for (const [type, media] of Object.entries(r.content ?? {})) {
      const old = content[type];
      content[type] = old ? { schema: { anyOf: [old.schema, media.schema] } } : media;
    }
    out[code] = { ...had, ...r, description: `${r.description} Or: ${had.description}`, content };
  }
  return out;
}

/** One `/api` call of a user login. */
export interface ApiOp {
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** How the hall's and the body parsers' errors answer on it (its table row's `errors`, src/http/api-call.ts). */
  style: ErrorStyle;
  rights?: readonly string[];
  parameters?: (Parameter | Reference)[];
  requestBody?: Operation['requestBody'];
  /** Its own answers (the dispatcher's are added). */
  responses: Record<string, Response | Reference>;
  forbidden?: ErrorOptions['forbidden'];
  /** Default: a user login. */
  security?: Operation['security'];
}

export function apiOp(method: 'get' | 'put' | 'post' | 'delete', o: ApiOp): Operation {
  const login = o.security === undefined;
  const errors = errorResponses({ style: o.style, login, method, ...(o.rights ? { rights: o.rights } : {}), ...(o.forbidden ? { forbidden: o.forbidden } : {}) });
  const op: Operation = {
    operationId: o.operationId,
    summary: o.summary,
    ...(o.description ? { description: o.description } : {}),
    tags: [o.tag],
    ...(o.parameters ? { parameters: o.parameters } : {}),
    ...(o.requestBody ? { requestBody: o.requestBody } : {}),
    responses: mergeResponses(errors, o.responses),
    ...(o.security ? { security: o.security } : {}),
    ...(o.rights ? { 'x-vts-rights': [...o.rights] } : {}),
  };
  return login && method !== 'get' ? withCsrf(op) : op;
}

/** The vehicle's path parameter first, then `more`. */
export const vehicleParams = (...more: (Parameter | Reference)[]): (Parameter | Reference)[] => [parameterRef('VehicleId'), ...more];

export const query = (name: string, description: string, schema: Schema, required = false): Parameter => ({ name, in: 'query', description, schema, ...(required ? { required } : {}) });

export const path = (name: string, description: string, schema: Schema = { type: 'string', minLength: 1 }): Parameter => ({ name, in: 'path', required: true, description, schema });

/** A form body (urlencoded or multipart); its fields may come in the query string instead. */
export function formBody(description: string, schema: Schema, alsoJson = false): RequestBody {
  const content: RequestBody['content'] = {
    'application/x-www-form-urlencoded': { schema },
    'multipart/form-data': { schema },
  };
  if (alsoJson) content['application/json'] = { schema };
  return { description, required: false, content };
}
