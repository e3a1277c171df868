/**
 * The OpenAPI description of the custom server API that scripts use (docs/protocol/commands.md §8.2,
 * README "Remote commands", "CSV downloads"): `/api/ovms/cmd`, `/api/ovms/csv` and their older form
 * `/api/call?fn.name=…`, authenticated by the vehicle id and its server (car) password. `ovms` is
 * the default of `--command-service`, which renames that path segment. Errors are one line of text
 * (`fn.format=json`: the command's errors as `{"error","message"}`). Its functions: dispatch.ts.
 */
import { CAR_LOGIN, csv, errorResponses, formBody, headerRef, jsonError, mergeResponses, query, ref, responseRef, text, textLine, TOO_MANY_RECORDS } from '../openapi/common.js';
import type { Operation, Parameter, Paths, Reference, Response, Schema } from '../openapi/types.js';

const TAG = 'Custom API';

const VEHICLE = query('fn.vehicleid', 'The vehicle id (any case).', { type: 'string', minLength: 1 }, true);
const CMD = query(
  'fn.cmd',
  'The command in the extended syntax: `#<code>[,<params>][/<records>]` an MP command (`#3/32`), `*<ussd>#`, `@<AT command>`, anything else a console command.',
  { type: 'string', minLength: 1 },
  true,
);
const FORMAT = query('fn.format', '`json`: answer `{"command","output","result","vehicleid"}` (and errors as JSON).', { type: 'string', enum: ['json'] });
const TYPES = query('fn.types', 'Comma list of record types (any case).', { type: 'string', minLength: 1, examples: ['*-LOG-Trip,*-LOG-Grid'] }, true);
const SINCE = query('fn.since', 'Only newer records: `YYYY-MM-DD[ HH:MM:SS]`, UTC.', { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2}:\\d{2})?$' });

const both = (description: string, textSchema: Schema, codes: readonly string[]): Response => ({
  description,
  content: { 'text/plain': { schema: textSchema }, 'application/json': { schema: jsonError(codes) } },
});

/** The answers of `cmd`. */
const CMD_RESPONSES: Record<string, Response> = {
  '200': {
    description: 'The output as text (the records of a multi-record MP answer one per line; `Error: command result <n>` when the vehicle answered a failure without output), or with `fn.format=json` the outcome.',
    content: { 'text/plain': { schema: { type: 'string' } }, 'application/json': { schema: ref('CustomCommandJson') } },
  },
  '400': text('`fn.vehicleid`, `fn.carpass` or `fn.cmd` missing, or a command that does not parse.'),
  '401': text('Unknown vehicle or wrong password.', textLine('Authentication failed')),
  '409': both('The vehicle is not connected.', { type: 'string' }, ['VTS_ERR_NOT_CONNECTED']),
  '500': both('The command failed in the server.', { type: 'string' }, ['VTS_ERR_INTERNAL']),
  '503': both("The vehicle's command queue is full, or the server is shutting down.", { type: 'string' }, ['VTS_ERR_QUEUE_FULL', 'VTS_ERR_SHUTTING_DOWN', 'VTS_ERR_CLUSTER']),
  '504': both('The vehicle did not answer in time.', { type: 'string' }, ['VTS_ERR_COMMAND_TIMEOUT']),
};

/** The answers of `csv`. */
const CSV_RESPONSES: Record<string, Response> = {
  '200': {
    description: 'The records of the types as a CSV download (`<ID>-<type>[+<type>…].csv`).',
    headers: { 'Content-Disposition': headerRef('ContentDisposition') },
    content: { 'text/csv': { schema: csv('vehicleid,type,recordnumber,timestamp,field1') } },
  },
  '400': text('`fn.vehicleid`, `fn.carpass` or `fn.types` missing, or `fn.since` not a date.'),
  '401': text('Unknown vehicle or wrong password.', textLine('Authentication failed')),
  '413': TOO_MANY_RECORDS,
};

function operation(
  method: 'get' | 'post',
  operationId: string,
  summary: string,
  description: string,
  params: Parameter[],
  responses: Record<string, Response | Reference>,
): Operation {
  // the login guard's refusals come as 429 with Retry-After (a text line), like every login
  const errors = errorResponses({ style: 'text', method });
  errors['429'] = responseRef('TooManyLogins');
  return {
    operationId: `${operationId}${method === 'post' ? 'Post' : ''}`,
    summary,
    description: `${description} ${method === 'post' ? 'The parameters may come as a form body as well as in the query string.' : ''}`.trim(),
    tags: [TAG],
    parameters: params,
    ...(method === 'post'
      ? { requestBody: formBody('The `fn.*` fields as a form.', { type: 'object', properties: Object.fromEntries(params.map((p) => [p.name, p.schema])) }) }
      : {}),
    responses: mergeResponses(errors, responses),
    security: CAR_LOGIN,
  };
}

const CMD_DESCRIPTION = 'Runs the command on the vehicle through the command service (audited as caller `vehicle:<ID>`, via `custom-api`).';
const CSV_DESCRIPTION = 'Historical records of several types as one CSV download (README "CSV downloads").';
const NAME = query('fn.name', 'The function: `ovms/cmd` or `ovms/csv` (`<--command-service>/<function>`).', { type: 'string', enum: ['ovms/cmd', 'ovms/csv'] }, true);

/** `/api/call?fn.name=ovms/cmd|csv`: the parameters and answers of both. */
function call(method: 'get' | 'post'): Operation {
  const optional = (p: Parameter): Parameter => ({ ...p, required: false, description: `${p.description} (${p.name === 'fn.cmd' || p.name === 'fn.format' ? 'cmd' : 'csv'}; required there)` });
  const params = [NAME, VEHICLE, optional(CMD), FORMAT, optional(TYPES), SINCE];
  return operation(method, 'customCall', 'The custom API by function name (the older form)', `\`fn.name=ovms/cmd\`: ${CMD_DESCRIPTION} \`fn.name=ovms/csv\`: ${CSV_DESCRIPTION}`, params, mergeResponses(CMD_RESPONSES, CSV_RESPONSES));
}

export const CUSTOM_PATHS: Paths = {
  '/api/ovms/cmd': {
    get: operation('get', 'customCommand', 'Run a command, authenticated by the vehicle id and its password', CMD_DESCRIPTION, [VEHICLE, CMD, FORMAT], CMD_RESPONSES),
    post: operation('post', 'customCommand', 'Run a command, authenticated by the vehicle id and its password', CMD_DESCRIPTION, [VEHICLE, CMD, FORMAT], CMD_RESPONSES),
  },
  '/api/ovms/csv': {
    get: operation('get', 'customCsv', 'Historical records as CSV, authenticated by the vehicle id and its password', CSV_DESCRIPTION, [VEHICLE, TYPES, SINCE], CSV_RESPONSES),
    post: operation('post', 'customCsv', 'Historical records as CSV, authenticated by the vehicle id and its password', CSV_DESCRIPTION, [VEHICLE, TYPES, SINCE], CSV_RESPONSES),
  },
  '/api/call': {
    get: call('get'),
    post: call('post'),
  },
};
