/**
 * The OpenAPI description of remote commands through the server (README "Remote commands"): the JSON command API
 * `/api/command/<ID>` and the reference's former "Not Yet Implemented" vehicle calls, both on the
 * command service (src/http/command/). They need the right `command`, `admin` or `*` (but for the
 * lock and valet state) and answer their errors as `{"error","message"}`. One operation per row of
 * the group's table (routes.ts).
 */
import { apiOp, formBody, json, jsonErrorResponse, path, query, ref, responseRef, type ApiOp, vehicleParams } from '../openapi/common.js';
import type { Operation, Parameter, Response, Schema } from '../openapi/types.js';

const TAG = 'Commands';
const RIGHTS = ['command', 'admin'] as const;
const OWNER = { text: ['Forbidden'], why: 'the vehicle is not one of the caller\'s, or unknown (`Forbidden`, plain text)' };

const err = jsonErrorResponse;

/** The command service's failures (src/errors.ts `commandFailure`). */
const FAILURES: Record<string, Response> = {
  '409': err('The vehicle is not connected.', ['VTS_ERR_NOT_CONNECTED']),
  '500': err('The command failed in the server.', ['VTS_ERR_INTERNAL']),
  '503': err("The vehicle's command queue is full (`--command-queue`), or the server is shutting down.", ['VTS_ERR_QUEUE_FULL', 'VTS_ERR_SHUTTING_DOWN']),
  '504': err('The vehicle did not answer in time.', ['VTS_ERR_COMMAND_TIMEOUT']),
};

/** One vehicle call that runs an MP command. */
function action(method: 'get' | 'put' | 'delete', o: Pick<ApiOp, 'operationId' | 'summary' | 'description'> & { params?: Parameter[]; list?: boolean }): Operation {
  const { params = [], list, ...names } = o;
  return apiOp(method, {
    ...names,
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    parameters: vehicleParams(...params),
    ...(method === 'put' && params.length > 0
      ? { requestBody: formBody('The parameters as a form, instead of the query string.', { type: 'object', properties: Object.fromEntries(params.map((p) => [p.name, p.schema])) }) }
      : {}),
    forbidden: OWNER,
    responses: {
      '200': list ? json('The values of the slots.', ref('CommandList')) : json("The vehicle's answer.", ref('CommandResult')),
      '400': err('A parameter out of range.', ['VTS_ERR_INVALID_INPUT', 'VTS_ERR_COMMAND_SYNTAX']),
      ...FAILURES,
    },
  });
}

const PIN = query('pin', 'The PIN: 1–16 letters or digits (also a form field).', { type: 'string', pattern: '^[0-9A-Za-z]{1,16}$' }, true);
const slotParams = (name: string): Parameter[] => [
  query(name, `The ${name} slot, 0–31 (also a form field).`, { type: 'string', pattern: '^\\d{1,2}$' }, true),
  query('value', 'The value: one line (also a form field).', { type: 'string' }, true),
];

/** GET /api/lock|valet/<id>: the stored D record's bits; any login (no command right). */
const state = (operationId: string, what: string): Operation =>
  apiOp('get', {
    operationId,
    summary: `The ${what} state (from the stored D record)`,
    description: 'Read from the stored `D` record, as `/api/status` shows it; needs no command right. Errors are plain text.',
    tag: TAG,
    style: 'text',
    parameters: vehicleParams(),
    forbidden: OWNER,
    responses: { '200': json('The lock and valet bits.', ref('LockState')), '502': responseRef('Paranoid') },
  });

const COMMAND_BODY: Schema = ref('CommandRequest');

export const COMMAND_DOCS = {
  runCommand: apiOp('post', {
    operationId: 'runCommand',
    summary: 'Run a console, JavaScript or MP command on the vehicle',
    description:
      'Waits for the answer (`timeout`), or with `async=1` answers 202 with a job to poll. Commands of one vehicle run one at a ' +
      'time; every command is audited. The fields may come as JSON, a form, or in the query string.',
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    parameters: vehicleParams(
      query('async', '`1` or `true`: answer at once with a job (`202`).', { type: 'string', enum: ['1', 'true'] }),
      query('command', 'The command, when not in the body.', { type: 'string' }),
      query('type', '`shell` (default), `js` or `mp`, when not in the body.', { type: 'string', enum: ['shell', 'js', 'mp'] }),
      query('timeout', 'Seconds, when not in the body.', { type: 'string', pattern: '^\\d+(\\.\\d+)?$' }),
    ),
    requestBody: {
      description: 'The command.',
      required: false,
      content: {
        'application/json': { schema: COMMAND_BODY },
        'application/x-www-form-urlencoded': { schema: COMMAND_BODY },
        'multipart/form-data': { schema: COMMAND_BODY },
      },
    },
    forbidden: OWNER,
    responses: {
      '200': json("The vehicle's answer.", ref('CommandResult')),
      '202': json('`async=1`: the job, `running`.', ref('CommandJob')),
      '400': err('No command, an unknown type, a bad timeout, or an MP command that does not parse.', ['VTS_ERR_INVALID_INPUT', 'VTS_ERR_COMMAND_SYNTAX']),
      ...FAILURES,
      '503': err("The command queue is full (jobs too), or the server is shutting down.", ['VTS_ERR_QUEUE_FULL', 'VTS_ERR_SHUTTING_DOWN']),
    },
  }),
  commandAudit: apiOp('get', {
    operationId: 'commandAudit',
    summary: "The vehicle's command audit",
    description: 'Newest first; every command of every path (the custom API, MP clients\' `C` messages) is audited.',
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    parameters: vehicleParams(query('limit', 'At most this many (1–1000, default 100).', { type: 'string', pattern: '^\\d+$' })),
    forbidden: OWNER,
    responses: { '200': json('The audit entries.', { type: 'array', items: ref('CommandAuditRow') }) },
  }),
  commandJob: apiOp('get', {
    operationId: 'commandJob',
    summary: 'The state of an async command job',
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    parameters: vehicleParams(path('job', 'The job id of the 202 answer.', { type: 'string', format: 'uuid' })),
    forbidden: OWNER,
    responses: { '200': json('The job.', ref('CommandJob')), '404': err('No such job of this vehicle and user.', ['VTS_ERR_UNKNOWN_JOB']) },
  }),
  chargeStart: action('put', {
    operationId: 'chargeStart',
    summary: 'Start charging, or (with mode or current) set the charge mode and current without starting',
    description: 'Without parameters MP 11 (start). With `mode` (MP 10), `current` (MP 15) or both (MP 16) it sets them and does not start charging, as the module does.',
    params: [
      query('mode', 'The charge mode (also a form field).', { type: 'string', enum: ['standard', 'storage', 'range', 'performance'] }),
      query('current', 'The charge current in amperes (also a form field).', { type: 'string', pattern: '^\\d{1,3}$' }),
    ],
  }),
  chargeStop: action('delete', { operationId: 'chargeStop', summary: 'Stop charging (MP 12)' }),
  lockState: state('lockState', 'lock'),
  lock: action('put', { operationId: 'lock', summary: 'Lock the vehicle (MP 20)', params: [PIN] }),
  unlock: action('delete', { operationId: 'unlock', summary: 'Unlock the vehicle (MP 22)', params: [PIN] }),
  valetState: state('valetState', 'valet'),
  valetOn: action('put', { operationId: 'valetOn', summary: 'Valet mode on (MP 21)', params: [PIN] }),
  valetOff: action('delete', { operationId: 'valetOff', summary: 'Valet mode off (MP 23)', params: [PIN] }),
  listFeatures: action('get', { operationId: 'listFeatures', summary: 'The feature slots (MP 1)', list: true }),
  setFeature: action('put', { operationId: 'setFeature', summary: 'Set a feature slot (MP 2)', params: slotParams('feature') }),
  listParameters: action('get', { operationId: 'listParameters', summary: 'The parameter slots (MP 3)', list: true }),
  setParameter: action('put', { operationId: 'setParameter', summary: 'Set a parameter slot (MP 4)', params: slotParams('parameter') }),
  reset: action('put', { operationId: 'reset', summary: 'Reboot the module (MP 5)', description: 'The module reboots and sends no answer: `output` is empty.' }),
  homelink: action('put', {
    operationId: 'homelink',
    summary: 'Press a homelink button (MP 24)',
    params: [query('button', 'The button, 1–3 (default 1; also a form field).', { type: 'string', enum: ['1', '2', '3'] })],
  }),
} satisfies Record<string, Operation>;
