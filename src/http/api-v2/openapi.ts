/**
 * The OpenAPI description of the reference's HTTP API v2 (docs/protocol/http-api-v2.md §4, README "HTTP API v2",
 * "CSV downloads"): sessions, tokens, vehicles, the stored records and the history, one operation
 * per row of the group's table (routes.ts). Errors are one line of plain text.
 */
import { apiOp, csv, formBody, headerRef, json, path, query, ref, responseRef, text, textLine, TOO_MANY_RECORDS, vehicleParams } from '../openapi/common.js';
import type { Operation, Schema } from '../openapi/types.js';

const TAG = 'API v2';
const OWNER = { text: ['Forbidden'], why: 'the vehicle is not one of the caller\'s, or unknown (`Forbidden`: the answer does not tell which)' };
const arrayOf = (name: string): Schema => ({ type: 'array', items: ref(name) });

const CSV_SINCE = query(
  'since',
  'Only records newer than this (`YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`, UTC); default: all.',
  { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2}:\\d{2})?$' },
);
const FORMAT = query('format', '`csv` (any case): the same rows as a CSV download (README "CSV downloads"); anything else: JSON.', { type: 'string', examples: ['csv'] });

const record = (operationId: string, summary: string, schema: string, description: string) =>
  apiOp('get', {
    operationId,
    summary,
    description,
    tag: TAG,
    style: 'text',
    parameters: vehicleParams(),
    forbidden: OWNER,
    responses: { '200': json('The decoded body (strings from the car, numbers computed).', ref(schema)), '502': responseRef('Paranoid') },
  });

export const API_V2_DOCS = {
  login: apiOp('get', {
    operationId: 'login',
    summary: 'Log in: open an API session',
    description: 'Ends the session the request\'s cookie names, if any, and opens a new one. The cookie has no attributes (as the reference sets it).',
    tag: TAG,
    style: 'text',
    rights: ['session'],
    responses: {
      '200': text('Logged in.', textLine('Login ok'), {
        'Set-Cookie': { description: '`svcapisession=<UUID>` (or the name of `--cookie-name`), no attributes.', schema: { type: 'string', pattern: '^[A-Za-z0-9_]+=[0-9A-Fa-f-]{36}$' } },
      }),
    },
  }),
  logout: apiOp('delete', {
    operationId: 'logout',
    summary: 'Log out: end the session of the cookie',
    tag: TAG,
    style: 'text',
    rights: ['session'],
    responses: { '200': text('Logged out (also when there was no session).', textLine('Logout ok')) },
  }),
  listTokens: apiOp('get', {
    operationId: 'listTokens',
    summary: "List the user's API tokens",
    description: 'Oldest first. `token` is the token\'s SHA-256, not the token: vts stores only that.',
    tag: TAG,
    style: 'text',
    rights: ['token.admin', 'admin'],
    responses: { '200': json('The tokens.', arrayOf('TokenRow')) },
  }),
  createToken: apiOp('post', {
    operationId: 'createToken',
    summary: 'Create an API token',
    description: 'The token is in the answer, shown this once. A token cannot carry rights its creator does not have (`403 Forbidden`).',
    tag: TAG,
    style: 'text',
    rights: ['token.admin', 'admin'],
    parameters: [
      query('application', 'Free text (default `notspecified`), at most 255 characters; also a form field.', { type: 'string', maxLength: 255 }),
      query('purpose', 'Free text (default `notspecified`); also a form field.', { type: 'string', maxLength: 255 }),
      query('permit', 'Rights: `*` or a comma list (default `auth`: read the vehicle calls); also a form field.', { type: 'string', maxLength: 255 }),
    ],
    requestBody: formBody('The fields, as a form (or in the query string).', {
      type: 'object',
      properties: { application: { type: 'string' }, purpose: { type: 'string' }, permit: { type: 'string' } },
    }),
    forbidden: { text: ['Forbidden'], why: 'the permit asks for a right the caller does not have (`Forbidden`)' },
    responses: {
      '201': json('Created.', ref('TokenCreated')),
      '400': text('A field longer than 255 characters or a permit that is not a list of rights.'),
    },
  }),
  deleteTokenMissing: apiOp('delete', {
    operationId: 'deleteTokenMissing',
    summary: 'Revoke a token: without the token',
    tag: TAG,
    style: 'text',
    rights: ['token.admin', 'admin'],
    responses: { '404': text('No token in the path (reason phrase `Token missing`).', textLine('Token not specified')) },
  }),
  deleteToken: apiOp('delete', {
    operationId: 'deleteToken',
    summary: 'Revoke an API token',
    description: 'The token itself or the hash `GET /api/token` lists. 200 whether or not it existed; sessions opened with it end.',
    tag: TAG,
    style: 'text',
    rights: ['token.admin', 'admin'],
    parameters: [path('token', 'The token, or its SHA-256 as listed.')],
    responses: { '200': json('Revoked (or there was no such token).', ref('TokenDeleted')) },
  }),
  listVehicles: apiOp('get', {
    operationId: 'listVehicles',
    summary: "The user's vehicles with their connection counts",
    tag: TAG,
    style: 'text',
    responses: { '200': json('Ordered by vehicle id.', arrayOf('VehicleRow')) },
  }),
  connectVehicle: apiOp('get', {
    operationId: 'connectVehicle',
    summary: 'Connect to the vehicle as an app',
    description: 'The caller counts as an app of the vehicle (the car is told `Z<n>` and reports faster) until `DELETE`, the end of its session, or `--session-timeout` without use.',
    tag: TAG,
    style: 'text',
    parameters: vehicleParams(),
    forbidden: OWNER,
    responses: { '200': json('The counts after registering.', ref('VehicleConnect')) },
  }),
  disconnectVehicle: apiOp('delete', {
    operationId: 'disconnectVehicle',
    summary: 'Disconnect from the vehicle',
    tag: TAG,
    style: 'text',
    parameters: vehicleParams(),
    forbidden: OWNER,
    responses: {
      '200': {
        description: 'Disconnected. As the reference: the content type says JSON, the body is the text `Disconnect OK` and a newline (not JSON).',
        content: { 'application/json': { schema: { type: 'string', const: 'Disconnect OK\n', contentMediaType: 'text/plain' } } },
      },
    },
  }),
  protocol: apiOp('get', {
    operationId: 'protocol',
    summary: 'The stored MP messages',
    description: 'The latest message of each code, paranoid ones included, in replay order (F, S, then the other codes).',
    tag: TAG,
    style: 'text',
    parameters: vehicleParams(),
    forbidden: OWNER,
    responses: { '200': json('The messages.', arrayOf('ProtocolRow')) },
  }),
  status: record('status', 'Status from the S and D records', 'StatusBody', 'A paranoid `S` is a 502; a paranoid `D` is left out.'),
  charge: record('charge', 'Charge state from the S and D records', 'ChargeBody', 'A paranoid `S` is a 502; a paranoid `D` is left out.'),
  location: record('location', 'Position from the L record', 'LocationBody', 'A paranoid `L` is a 502.'),
  tpms: record('tpms', 'Tyres from the Y record, else the W record', 'TpmsBody', 'A paranoid `Y` (or `W`, without a `Y`) is a 502.'),
  historicalSummary: apiOp('get', {
    operationId: 'historicalSummary',
    summary: 'Historical records: one row per record type',
    tag: TAG,
    style: 'text',
    parameters: vehicleParams(CSV_SINCE, FORMAT),
    forbidden: OWNER,
    responses: {
      '200': {
        description: 'Ordered by record type; with `format=csv` a CSV download (`<ID>-summary.csv`).',
        headers: { 'Content-Disposition': headerRef('ContentDisposition') },
        content: {
          'application/json': { schema: arrayOf('HistoricalSummaryRow') },
          'text/csv': { schema: csv('vehicleid,type,distinctrecs,totalrecs,totalsize,first,last\\r\\n') },
        },
      },
      '400': text('`since` is not `YYYY-MM-DD[ HH:MM:SS]`.'),
    },
  }),
  historicalRecords: apiOp('get', {
    operationId: 'historicalRecords',
    summary: 'Historical records of one type',
    description: 'Ordered by time, then record number. The type compares without regard to case (`*-LOG-Trip`, `*-Log-Notification`, `S`…).',
    tag: TAG,
    style: 'text',
    parameters: vehicleParams(path('recordType', 'The record type (URL-encoded).'), CSV_SINCE, FORMAT),
    forbidden: OWNER,
    responses: {
      '200': {
        description: 'The records; with `format=csv` a CSV download, one column per data field (`field1`…`fieldN`).',
        headers: { 'Content-Disposition': headerRef('ContentDisposition') },
        content: {
          'application/json': { schema: arrayOf('HistoricalRecordRow') },
          'text/csv': { schema: csv('vehicleid,type,recordnumber,timestamp,field1') },
        },
      },
      '400': text('`since` is not `YYYY-MM-DD[ HH:MM:SS]`.'),
      '413': TOO_MANY_RECORDS,
    },
  }),
} satisfies Record<string, Operation>;
