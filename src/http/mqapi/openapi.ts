/**
 * The OpenAPI description of `/mqapi`, the HTTP auth backend of an external Mosquitto
 * (docs/protocol/http-api-v2.md §5; the handler and its calls: routes.ts).
 */
import { errorResponses, mergeResponses, NO_LOGIN, text, textLine } from '../openapi/common.js';
import type { Operation, Paths, Response, Schema } from '../openapi/types.js';

const MQAPI = 'MQTT auth';

const EMPTY: Schema = { type: 'string', const: '' };

/** A `/mqapi` call: POST form fields, the outcome in the status code and reason phrase, empty bodies. */
function mqapi(call: string, summary: string, description: string, fields: Record<string, Schema>, required: string[], answers: Record<string, Response>): Operation {
  return {
    operationId: `mqapi${call[0]!.toUpperCase()}${call.slice(1)}`,
    summary,
    description: `${description} Any other method answers \`404 Unrecognised API call\`.`,
    tags: [MQAPI],
    security: NO_LOGIN,
    requestBody: {
      description: 'Form fields, as the Mosquitto HTTP auth plugin sends them.',
      required: true,
      content: {
        'application/x-www-form-urlencoded': { schema: { type: 'object', properties: fields, required } },
        'multipart/form-data': { schema: { type: 'object', properties: fields, required } },
      },
    },
    responses: mergeResponses(errorResponses({ style: 'text', method: 'post' }), answers),
  };
}

const empty = (description: string): Response => text(description, EMPTY);

/** One path per call of `MQAPI_CALLS` (routes.ts), POST only. */
export const MQAPI_PATHS: Paths = {
  '/mqapi/auth': {
    post: mqapi(
      'auth',
      'MQTT login check',
      'Valid user name and account password or API token, with the right `v3` or `mqtt` (`*` has all). Throttled like every login: a refused attempt is a 403.',
      { username: { type: 'string' }, password: { type: 'string' }, clientid: { type: 'string' }, topic: { type: 'string' }, acc: { type: 'string' } },
      ['username', 'password'],
      { '200': empty('`Authentication OK`.'), '403': empty('`Authentication FAILED`.') },
    ),
  },
  '/mqapi/superuser': {
    post: mqapi(
      'superuser',
      'MQTT superuser check',
      'Whether the user is the `--mqtt-superuser`.',
      { username: { type: 'string' } },
      ['username'],
      { '200': empty('`Is a superuser`.'), '403': empty('`Not a superuser` (or none is configured).'), '404': text('No user name (`Username required`).', textLine('Username required')) },
    ),
  },
  '/mqapi/acl': {
    post: mqapi(
      'acl',
      'MQTT topic check',
      'The superuser may use every topic; a user the topics under `ovms/<username>/`; a module\'s config read request (`…/client/<id>/request/config`) only for reading (`acc` 1; 2, 3 or no `acc`: denied).',
      { username: { type: 'string' }, topic: { type: 'string' }, clientid: { type: 'string' }, acc: { type: 'string', enum: ['1', '2', '3', '4'] } },
      ['username', 'topic'],
      { '200': empty('`Superuser acl is permitted` or `Access granted`.'), '403': empty('`Access denied`.') },
    ),
  },
};
