/**
 * The routes outside the API calls: health, readiness and metrics for operators, this document
 * and its page, the HTTP auth backend of an external Mosquitto (`/mqapi`, http-api-v2.md §5), and
 * the web dashboard's files (src/http/web.ts).
 */
import { errorResponses, headerRef, json, mergeResponses, NO_LOGIN, ref, responseRef, text, textLine } from './common.js';
import type { Operation, Paths, Response, Schema } from './types.js';

const OPS = 'Operations';
const MQAPI = 'MQTT auth';
const DASHBOARD = 'Dashboard';

/** The files of the documentation page under `/api/docs/`: the page's own script and swagger-ui-dist's. */
export const DOCS_ASSETS = [
  { id: 'docsStyles', path: '/api/docs/swagger-ui.css', file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  { id: 'docsBundle', path: '/api/docs/swagger-ui-bundle.js', file: 'swagger-ui-bundle.js', type: 'application/javascript; charset=utf-8' },
  { id: 'docsInit', path: '/api/docs/init.js', file: null, type: 'application/javascript; charset=utf-8' },
] as const;

const file = (operationId: string, summary: string, mediaType: string, tag = DASHBOARD): Operation => ({
  operationId,
  summary,
  tags: [tag],
  security: NO_LOGIN,
  responses: { '200': { description: 'The file.', content: { [mediaType]: { schema: { type: 'string' } } } } },
});

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

export const OPERATIONS_PATHS: Paths = {
  '/health': {
    get: {
      operationId: 'health',
      summary: 'Liveness: the process is up',
      tags: [OPS],
      security: NO_LOGIN,
      description: 'Not rate limited (nor are `/ready` and `/metrics`).',
      responses: { '200': json('Up.', ref('Health')) },
    },
  },
  '/ready': {
    get: {
      operationId: 'ready',
      summary: 'Readiness: the store, the cluster membership and the listeners',
      description:
        'For a load balancer: take the node out of service while it answers 503. A cluster node whose Redis is out of reach ' +
        'still serves its own connections: 200 with `status` `degraded` and the cluster check `degraded: …` (for monitors to alert on, ' +
        'not a reason to take the node out).',
      tags: [OPS],
      security: NO_LOGIN,
      responses: {
        '200': json('Ready: every check `ok`, `off` or `degraded: …` (then `status` is `degraded`).', {
          allOf: [ref('Ready')],
          properties: { status: { enum: ['ready', 'degraded'] } },
        }),
        '503': json('Not ready: the checks that failed say why.', { allOf: [ref('Ready')], properties: { status: { const: 'not ready' } } }),
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'metrics',
      summary: 'Prometheus metrics',
      description: "vts's own metrics (README \"Metrics\") and the process metrics, in Prometheus text format. Only when the server runs with `--metrics-token`.",
      tags: [OPS],
      security: [{ metricsToken: [] }],
      responses: {
        '200': { description: 'The metrics (`text/plain; version=0.0.4; charset=utf-8`).', content: { 'text/plain; version=0.0.4': { schema: { type: 'string', pattern: '^# (HELP|TYPE) ' } } } },
        '401': text('No `Authorization: Bearer <token>`, or another token (with `WWW-Authenticate: Bearer`).', textLine('Authentication failed'), {
          'WWW-Authenticate': { description: '`Bearer realm="vts metrics"`.', schema: { type: 'string', pattern: '^Bearer' } },
        }),
        '404': text('The server runs without `--metrics-token`: no metrics.', { type: 'string', pattern: '^not found: /metrics is served when .*--metrics-token\\n$' }),
        '429': text('Too many wrong tokens from this address (the login throttle).', { type: 'string', pattern: '^Too many failed logins: try again in \\d+ s\\n$' }, {
          'Retry-After': headerRef('RetryAfter'),
        }),
      },
    },
  },
  '/api/openapi.json': {
    get: {
      operationId: 'openapi',
      summary: 'This document',
      tags: [OPS],
      security: NO_LOGIN,
      responses: {
        '200': json('The OpenAPI 3.1 document of every route.', { type: 'object', properties: { openapi: { const: '3.1.0' } }, required: ['openapi', 'info', 'paths'] }),
      },
    },
  },
  '/api/docs': {
    get: {
      operationId: 'docs',
      summary: 'This document, rendered (Swagger UI)',
      tags: [OPS],
      security: NO_LOGIN,
      responses: { '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  },
  ...Object.fromEntries(
    DOCS_ASSETS.map((a) => [a.path, { get: file(a.id, 'A file of the documentation page', a.type.split(';')[0]!, OPS) }]),
  ),
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
  '/': {
    get: {
      operationId: 'dashboard',
      summary: 'The web dashboard',
      description: 'The built dashboard (README "Web dashboard"); without a build (`npm run build`), a 503 that says so.',
      tags: [DASHBOARD],
      security: NO_LOGIN,
      responses: {
        '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
        '503': text('The dashboard is not built.', { type: 'string', pattern: '^The web dashboard is not built' }),
      },
    },
  },
  '/index.html': { get: file('dashboardIndex', 'The web dashboard (the same page as `/`)', 'text/html') },
  '/assets/{file}': {
    get: {
      ...file('dashboardAsset', "A file of the dashboard's build (scripts, styles)", 'application/octet-stream'),
      description: 'The names carry a content hash (`index-<hash>.js`); the content type follows the extension.',
      parameters: [{ name: 'file', in: 'path', required: true, description: 'The file name.', schema: { type: 'string', pattern: '^[^/]+$' } }],
      responses: { '200': { description: 'The file.', content: { 'application/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } } }, '404': responseRef('NotFound') },
    },
  },
  '/web/config.json': {
    get: {
      operationId: 'webConfig',
      summary: "The dashboard's map settings",
      description: '`--map-tiles` and `--map-attribution`.',
      tags: [DASHBOARD],
      security: NO_LOGIN,
      responses: { '200': json('The settings.', ref('WebConfig')) },
    },
  },
};
