/**
 * Serves the OpenAPI document at `GET /api/openapi.json` and a page that renders it at
 * `GET /api/docs` (Swagger UI from swagger-ui-dist, served from this server: no CDN). These static
 * routes win over the `/api/*` wildcard of the API dispatcher. The files are read on first use and
 * kept; the JSON text is built once. The page and its files carry a Content-Security-Policy that
 * Swagger UI works with and refuse to be framed, like the dashboard's.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { sendJsonText, status } from '../reply.js';
import { openApiJson } from './document.js';
import { DOCS_ASSETS } from './operations.js';

export const OPENAPI_PATH = '/api/openapi.json';
export const DOCS_PATH = '/api/docs';

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vts HTTP API</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
<style>html { box-sizing: border-box; overflow-y: scroll; } *, *::before, *::after { box-sizing: inherit; } body { margin: 0; background: #fafafa; }</style>
</head>
<body>
<noscript>This page renders <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>, the OpenAPI document of this server, with JavaScript.</noscript>
<div id="swagger-ui" data-url="${OPENAPI_PATH}"></div>
<script src="/api/docs/swagger-ui-bundle.js" charset="utf-8"></script>
<script src="/api/docs/init.js" charset="utf-8"></script>
</body>
</html>
`;

/**
 * What the documentation's files may do: scripts and calls of this server only (Swagger UI's
 * "Try it out" calls this server), its inline styles and `data:` images (icons), no framing (no
 * clickjacking of "Try it out" in a signed-in browser).
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/** The page's own script (no inline script): Swagger UI on the document the page names, with no outside validator. */
const INIT = `window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-url'),
    dom_id: '#swagger-ui',
    validatorUrl: null,
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

let distDir: string | undefined;

/** swagger-ui-dist's folder (its absolute-path.js, not its index.js, which would load the bundle into node). */
function swaggerUiDir(): string {
  if (distDir === undefined) {
    const getAbsoluteFSPath = createRequire(import.meta.url)('swagger-ui-dist/absolute-path.js') as () => string;
    distDir = getAbsoluteFSPath();
  }
  return distDir;
}

const files = new Map<string, Promise<Buffer>>();

function distFile(name: string): Promise<Buffer> {
  let file = files.get(name);
  if (!file) {
    file = readFile(join(swaggerUiDir(), name));
    // a failed read is tried again on the next request
    file.catch(() => files.delete(name));
    files.set(name, file);
  }
  return file;
}

/** The headers of the documentation's page and files: the CSP, no framing, no sniffing. */
function guarded(reply: FastifyReply): FastifyReply {
  return reply.header('Content-Security-Policy', DOCS_CSP).header('X-Frame-Options', 'DENY').header('X-Content-Type-Options', 'nosniff').header('Referrer-Policy', 'same-origin');
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.get(OPENAPI_PATH, (_req, reply) => sendJsonText(reply, 200, openApiJson()));
  app.get(DOCS_PATH, (_req, reply) => guarded(status(reply, 200)).header('content-type', 'text/html; charset=utf-8').send(PAGE));
  for (const asset of DOCS_ASSETS) {
    app.get(asset.path, async (_req, reply) => {
      const body = asset.file === null ? INIT : await distFile(asset.file);
      return guarded(status(reply, 200)).header('content-type', asset.type).send(body);
    });
  }
}
