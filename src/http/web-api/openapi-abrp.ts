/** The OpenAPI description of the ABRP link calls (docs/web-api.md "ABRP"; routes in abrp.ts). */
import { apiOp, formBody, json, jsonErrorResponse, NOT_YOURS, ref, vehicleParams } from '../openapi/common.js';
import type { Operation } from '../openapi/types.js';

const TAG = 'ABRP';
const RIGHTS = ['abrp.admin', 'admin'] as const;
const err = jsonErrorResponse;

export const ABRP_DOCS = {
  readAbrp: apiOp('get', {
    operationId: 'readAbrp',
    summary: "The vehicle's ABRP link: its state, last send and last error (never the token)",
    tag: TAG,
    style: 'json',
    parameters: vehicleParams(),
    forbidden: NOT_YOURS,
    responses: { '200': json('The link (`linked` false: none).', ref('AbrpLink')) },
  }),
  linkAbrp: apiOp('put', {
    operationId: 'linkAbrp',
    summary: "Link the vehicle to the owner's ABRP account (or link it again with a new token)",
    description:
      'The ABRP user token (ABRP shows it when a generic live-data connection is set up for the car) goes in the body, never in the query string; it is stored sealed and never shown again. ' +
      'The server sends the live telemetry from then on (docs/abrp.md).',
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    parameters: vehicleParams(),
    forbidden: NOT_YOURS,
    requestBody: { description: 'The token.', required: true, content: { 'application/json': { schema: ref('AbrpToken') }, ...formBody('', ref('AbrpToken')).content } },
    responses: {
      '200': json('Linked: the link, state `pending` until the first send.', ref('AbrpLink')),
      '400': err('No token, or not 1–256 printable characters without spaces.', ['VTS_ERR_INVALID_INPUT']),
      '503': err('The operator has not configured ABRP (`--abrp-api-key`).', ['VTS_ERR_ABRP_OFF']),
    },
  }),
  unlinkAbrp: apiOp('delete', {
    operationId: 'unlinkAbrp',
    summary: 'Unlink the vehicle from ABRP: nothing more is sent',
    tag: TAG,
    style: 'json',
    rights: RIGHTS,
    parameters: vehicleParams(),
    forbidden: NOT_YOURS,
    responses: { '204': { description: 'Unlinked.' }, '404': err('The vehicle is not linked.', ['VTS_ERR_NOT_FOUND']) },
  }),
} satisfies Record<string, Operation>;
