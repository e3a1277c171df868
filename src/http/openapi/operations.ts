/**
 * The OpenAPI description of the routes outside the API calls: health, readiness and metrics for
 * operators (src/http/ops.ts), this document and its page (routes.ts), and the web dashboard's
 * files (src/http/web.ts). The `/mqapi` calls are described in their folder (src/http/mqapi/openapi.ts).
 */
import { headerRef, json, NO_LOGIN, ref, responseRef, text, textLine } from './common.js';
import type { Operation, Paths } from './types.js';

const OPS = 'Operations';
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
};

/** The web dashboard's files (src/http/web.ts). */
export const DASHBOARD_PATHS: Paths = {
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
