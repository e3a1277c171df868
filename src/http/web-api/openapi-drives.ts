/**
 * The OpenAPI description of the drives, charges, places, battery and stats calls of the web API
 * (docs/web-api.md "Drives and charges", "Places", "Battery", "Stats"): one operation per row of
 * routes.ts. JSON in the documented key order; errors `{"error","message"}` whose message names
 * the bad field.
 */
import { apiOp, json, jsonErrorResponse, NOT_YOURS, path, query, ref, vehicleParams } from '../openapi/common.js';
import type { Operation, Response, Schema } from '../openapi/types.js';

const TAG = 'Drives';
const EPOCH_TEXT: Schema = { type: 'string', pattern: '^\\d{1,12}$' };

const err = jsonErrorResponse;
const arrayOf = (name: string): Schema => ({ type: 'array', items: ref(name) });
const id = (what: string) => path('id', `The ${what}'s id.`, { type: 'string', pattern: '^\\d{1,12}$' });

const CSV_DISPOSITION = {
  description: '`attachment; filename="<drives|charges>-<VEHICLEID>-<from>-<to>.csv"`.',
  schema: { type: 'string', pattern: '^attachment; filename="(drives|charges)-[A-Za-z0-9._+-]+-\\d+-\\d+\\.csv"$' },
} as const;

/** The period and format of a list. */
const listParams = () =>
  vehicleParams(
    query('from', 'Epoch seconds (default: `to` − 30 days).', EPOCH_TEXT),
    query('to', 'Epoch seconds (default: now); at most 400 days after `from`.', EPOCH_TEXT),
    query('format', '`json` (the default) or `csv`.', { type: 'string', enum: ['json', 'csv'] }),
  );

const list = (what: 'drives' | 'charges', item: string, head: string): Record<string, Response> => ({
  '200': {
    description: `The ${what} that overlap the period (start ≤ \`to\`, end ≥ \`from\` or still going on), oldest first.`,
    headers: { 'Content-Disposition': { description: `With \`format=csv\`: ${CSV_DISPOSITION.description}`, schema: CSV_DISPOSITION.schema } },
    content: {
      'application/json': { schema: arrayOf(item) },
      'text/csv': { schema: { type: 'string', pattern: `^${head}`, description: 'A header row, then a row per session (RFC 4180), `text/csv; charset=utf-8`.' } },
    },
  },
  '400': err('`from` or `to` not epoch seconds, `from` after `to`, more than 400 days apart, or a `format` other than json or csv (the message names the field).', ['VTS_ERR_INVALID_INPUT']),
});

const PLACE_BODY = { description: 'The place (JSON).', required: true, content: { 'application/json': { schema: ref('NewPlace') } } };
const BAD_PLACE = err('A missing or bad value: `radius` outside 10–5,000 m, an unknown time zone, a window not `HH:MM`, a negative price, … (the message names the field).', [
  'VTS_ERR_INVALID_INPUT',
]);
const RETAG = 'Every session of the caller\'s vehicles is then tagged again with the places and charges priced again.';

export const DRIVES_DOCS = {
  listDrives: apiOp('get', {
    operationId: 'listDrives',
    summary: "The vehicle's drives of a period (JSON or CSV)",
    tag: TAG,
    style: 'json',
    parameters: listParams(),
    forbidden: NOT_YOURS,
    responses: list('drives', 'Drive', 'id,'),
  }),
  getDrive: apiOp('get', {
    operationId: 'getDrive',
    summary: 'One drive with its route',
    tag: TAG,
    style: 'json',
    parameters: vehicleParams(id('drive')),
    forbidden: NOT_YOURS,
    responses: { '200': json('The drive.', ref('DriveDetail')), '404': err('No such drive of the vehicle.', ['VTS_ERR_NOT_FOUND']) },
  }),
  driveGpx: apiOp('get', {
    operationId: 'driveGpx',
    summary: 'One drive as GPX 1.1 (a track of its route)',
    tag: TAG,
    style: 'json',
    parameters: vehicleParams(id('drive')),
    forbidden: NOT_YOURS,
    responses: {
      '200': {
        description: 'The GPX document, as an attachment `drive-<VEHICLEID>-<id>.gpx`.',
        headers: { 'Content-Disposition': { description: '`attachment; filename="drive-<VEHICLEID>-<id>.gpx"`.', schema: { type: 'string' } } },
        content: { 'application/gpx+xml': { schema: { type: 'string', pattern: '^<\\?xml ' } } },
      },
      '404': err('No such drive of the vehicle.', ['VTS_ERR_NOT_FOUND']),
    },
  }),
  listCharges: apiOp('get', {
    operationId: 'listCharges',
    summary: "The vehicle's charges of a period (JSON or CSV)",
    tag: TAG,
    style: 'json',
    parameters: listParams(),
    forbidden: NOT_YOURS,
    responses: list('charges', 'Charge', 'id,'),
  }),
  getCharge: apiOp('get', {
    operationId: 'getCharge',
    summary: 'One charge with its samples (power and SOC over the charge)',
    tag: TAG,
    style: 'json',
    parameters: vehicleParams(id('charge')),
    forbidden: NOT_YOURS,
    responses: { '200': json('The charge.', ref('ChargeDetail')), '404': err('No such charge of the vehicle.', ['VTS_ERR_NOT_FOUND']) },
  }),
  listPlaces: apiOp('get', {
    operationId: 'listPlaces',
    summary: "The caller's places",
    tag: TAG,
    style: 'json',
    responses: { '200': json('Ordered by id.', arrayOf('Place')) },
  }),
  addPlace: apiOp('post', {
    operationId: 'addPlace',
    summary: 'Add a place (a circle with a tariff)',
    description: RETAG,
    tag: TAG,
    style: 'json',
    requestBody: PLACE_BODY,
    responses: { '201': json('Added: the place with its id.', ref('Place')), '400': BAD_PLACE },
  }),
  changePlace: apiOp('put', {
    operationId: 'changePlace',
    summary: 'Change a place (the whole place)',
    description: RETAG,
    tag: TAG,
    style: 'json',
    parameters: [id('place')],
    requestBody: PLACE_BODY,
    responses: { '200': json('Changed: the place.', ref('Place')), '400': BAD_PLACE, '404': err('Not one of the caller\'s places.', ['VTS_ERR_NOT_FOUND']) },
  }),
  removePlace: apiOp('delete', {
    operationId: 'removePlace',
    summary: 'Remove a place',
    description: RETAG,
    tag: TAG,
    style: 'json',
    parameters: [id('place')],
    responses: { '204': { description: 'Removed.' }, '404': err('Not one of the caller\'s places.', ['VTS_ERR_NOT_FOUND']) },
  }),
  battery: apiOp('get', {
    operationId: 'battery',
    summary: "The battery's health: capacity, SOH, vampire drain",
    tag: TAG,
    style: 'json',
    parameters: vehicleParams(),
    forbidden: NOT_YOURS,
    responses: { '200': json('From every session of the vehicle.', ref('Battery')) },
  }),
  stats: apiOp('get', {
    operationId: 'stats',
    summary: 'Distance, energy, cost and efficiency per day, week, month or year',
    tag: TAG,
    style: 'json',
    parameters: vehicleParams(
      query('period', '`day`, `week` (from Monday), `month` (the default) or `year`.', { type: 'string', enum: ['day', 'week', 'month', 'year'] }),
      query('from', 'Epoch seconds (default: `to` − 30 days of days, 26 weeks, a year of months, 5 years of years).', EPOCH_TEXT),
      query('to', 'Epoch seconds (default: now).', EPOCH_TEXT),
      query('tz', 'The IANA time zone the periods start in (default UTC).', { type: 'string', examples: ['Europe/Berlin'] }),
    ),
    forbidden: NOT_YOURS,
    responses: {
      '200': json('One row per period, from the one holding `from` to the one holding `to` (empty ones too), oldest first.', arrayOf('StatsRow')),
      '400': err('A bad `period`, `tz`, `from` or `to`, `from` after `to`, or too long a span (the message names the field).', ['VTS_ERR_INVALID_INPUT']),
    },
  }),
} satisfies Record<string, Operation>;
