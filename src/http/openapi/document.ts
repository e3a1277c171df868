/**
 * The OpenAPI 3.1 document of every HTTP route of vts (issue 17), assembled from the descriptions
 * the route groups keep in their folders: the tables of API v2, commands and the web API
 * (src/http/<group>/routes.ts, one operation per row), the custom API (custom-api/openapi.ts),
 * `/mqapi` (mqapi/openapi.ts) and the rest (operations.ts). Served at `/api/openapi.json` and
 * rendered at `/api/docs` (routes.ts); test/http/openapi-*.test.ts check it against the routes the
 * server answers and the golden bodies.
 */
import { SERVER_VERSION } from '../../util/version.js';
import type { ApiGroup } from '../api-call.js';
import { API_V2 } from '../api-v2/routes.js';
import { COMMAND_API } from '../command/routes.js';
import { CUSTOM_PATHS } from '../custom-api/openapi.js';
import { MQAPI_PATHS } from '../mqapi/openapi.js';
import { WEB_API } from '../web-api/routes.js';
import { HEADERS, PARAMETERS, RESPONSES, USER_LOGIN } from './common.js';
import { DASHBOARD_PATHS, OPERATIONS_PATHS } from './operations.js';
import { ACCOUNT_LINK_PATHS } from '../web-api/openapi-account.js';
import { SCHEMAS } from './schemas.js';
import type { HttpMethod, OpenApiDocument, Paths, PathItem } from './types.js';
import { HTTP_METHODS } from './types.js';

const DESCRIPTION = `
The HTTP routes of vts, the vehicle telemetry server compatible with the OVMS v2 server (README "HTTP API v2").

- **API v2** (\`/api/<call>/…\`): the reference's API, byte-compatible with its clients. JSON with sorted keys and a trailing
  newline; values typed as the reference types them: **fields from car messages are strings** (null when the car did not send
  them), counts, ages and door bits are numbers, times \`YYYY-MM-DD HH:MM:SS\` UTC. Errors are one line of plain text.
- **Commands**, **Web API**, **Push**: vts's own calls (README "Remote commands", docs/web-api.md); errors
  \`{"error":"VTS_ERR_…","message":"…"}\`, but for the dispatcher's own (401, 403 \`Insufficient rights\`, 429), which stay text.
- **Custom API**: \`/api/ovms/cmd\` and \`/api/ovms/csv\`, authenticated by the vehicle id and its server password.
- **MQTT auth**: the HTTP auth backend of an external Mosquitto (\`/mqapi\`).

**Authentication** on \`/api\`: \`username\` and \`password\` in the query string (the account password, or one of the user's API
tokens; on a POST also as form fields), or the session cookie \`svcapisession\` (from \`GET /api/cookie\` or \`POST /api/session\`;
\`--cookie-name\` adds another name). A call needs the rights its \`x-vts-rights\` lists (any one of them; \`*\` has all). The cookie
of a web session (\`POST /api/session\`) must bring \`X-CSRF-Token\` on every POST, PUT and DELETE. Failed logins are throttled
(429 with \`Retry-After\`); every address is rate-limited (429 after a delay).

**Every route**: \`HEAD\` is answered like \`GET\` without the body; \`OPTIONS\` on any path answers a CORS preflight (204 with
\`Access-Control-Allow-Methods\`); every response carries \`Access-Control-Allow-Origin: *\`, \`Cache-Control: max-age=0\` and
\`Expires\` equal to \`Date\`. An unknown call under \`/api\` is \`404 Unrecognised API call\`, any other unknown path \`404 not found\`.
`.trim();

/** The paths of a group's table, in the order of its rows. */
function tablePaths(group: ApiGroup): Paths {
  const out: Paths = {};
  for (const row of group.rows) {
    const method = row.method.toLowerCase() as HttpMethod;
    const item: PathItem = out[row.path] ?? {};
    if (item[method]) throw new Error(`OpenAPI: ${row.method} ${row.path} is described twice`);
    out[row.path] = { ...item, [method]: row.doc };
  }
  return out;
}

/** The path items of the groups, one per path (a path shared by two groups gets the methods of both). */
function mergePaths(...groups: Paths[]): Paths {
  const out: Paths = {};
  for (const group of groups) {
    for (const [path, item] of Object.entries(group)) {
      const had: PathItem = out[path] ?? {};
      for (const method of HTTP_METHODS) {
        if (had[method] && item[method]) throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} is described twice`);
      }
      out[path] = { ...had, ...item };
    }
  }
  return out;
}

export function buildOpenApiDocument(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'vts HTTP API',
      version: SERVER_VERSION,
      summary: 'API v2 (OVMS compatible), commands, web API, custom API, MQTT auth backend, operations',
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This server (HTTP, by default on 6868; HTTPS, by default on 6869)' }],
    tags: [
      { name: 'API v2', description: "The reference server's API (docs/protocol/http-api-v2.md)." },
      { name: 'Commands', description: 'Remote commands through the command service.' },
      { name: 'Custom API', description: 'Scripts that hold the vehicle id and its server password.' },
      { name: 'Web API', description: "The dashboard's calls (docs/web-api.md)." },
      { name: 'Account', description: "The account: sign-up, mail verification and password reset; the signed-in owner's settings, its TOTP second factor and passkeys (docs/accounts.md)." },
      { name: 'Drives', description: 'Drives, charges, places, battery health and statistics, computed by the server (docs/web-api.md).' },
      { name: 'Integrations', description: 'Home Assistant, MQTT tools and other services fed from the vehicle\'s state (docs/home-assistant.md).' },
      { name: 'Push', description: 'Push subscriptions, targets and the notification history.' },
      { name: 'Alerts', description: "Alerts the server computes from the vehicle's data, and the owner's quiet hours (docs/alerts.md)." },
      { name: 'Admin', description: "The operator's page: users, vehicles, the server's figures, the audit log; the admin account only (docs/accounts.md)." },
      { name: 'ABRP', description: "A vehicle's live telemetry sent to A Better Route Planner (docs/abrp.md)." },
      { name: 'Own vehicles and sharing', description: 'The vehicles an owner adds, and shares with other users to view or control (docs/accounts.md).' },
      { name: 'MQTT auth', description: 'The HTTP auth backend of a Mosquitto with the HTTP auth plugin.' },
      { name: 'Dashboard', description: 'The web dashboard.' },
      { name: 'Operations', description: 'Health, readiness, metrics and this document.' },
    ],
    security: USER_LOGIN,
    paths: mergePaths(tablePaths(API_V2), tablePaths(COMMAND_API), CUSTOM_PATHS, tablePaths(WEB_API), OPERATIONS_PATHS, MQAPI_PATHS, DASHBOARD_PATHS, ACCOUNT_LINK_PATHS),
    components: {
      schemas: SCHEMAS,
      responses: RESPONSES,
      parameters: PARAMETERS,
      headers: HEADERS,
      securitySchemes: {
        username: { type: 'apiKey', in: 'query', name: 'username', description: 'The user name; with `password` or `apiToken`.' },
        password: { type: 'apiKey', in: 'query', name: 'password', description: 'The account password (rights `*` unless `vts user add --rights` said otherwise).' },
        apiToken: {
          type: 'apiKey',
          in: 'query',
          name: 'password',
          description: 'One of the user\'s API tokens in place of the password (`POST /api/token`); its `permit` limits what it can do (default `auth`: read).',
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'svcapisession',
          description: 'An API session: `GET /api/cookie` or a web session of `POST /api/session` (which needs `X-CSRF-Token` on POST, PUT, DELETE).',
        },
        carPassword: {
          type: 'apiKey',
          in: 'query',
          name: 'fn.carpass',
          description: 'The custom API: the server (car) password of the vehicle `fn.vehicleid` names.',
        },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'The token of `--metrics-token`.' },
      },
    },
  };
}

let documentJson: string | undefined;

/** The document as JSON text, built once. */
export function openApiJson(): string {
  documentJson ??= JSON.stringify(buildOpenApiDocument());
  return documentJson;
}
