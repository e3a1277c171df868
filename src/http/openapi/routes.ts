/**
 * Serves the OpenAPI document at `GET /api/openapi.json` and a page that renders it at
 * `GET /api/docs` (Swagger UI from swagger-ui-dist, served from this server: no CDN). These static
 * routes win over the `/api/*` wildcard of the API dispatcher. The files are read on first use and
 * kept; the JSON text is built once.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
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

/** The page's own script (no inline script): Swagger UI on the document the page names. */
const INIT = `window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-url'),
    dom_id: '#swagger-ui',
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

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.get(OPENAPI_PATH, (_req, reply) => sendJsonText(reply, 200, openApiJson()));
  app.get(DOCS_PATH, (_req, reply) => status(reply, 200).header('content-type', 'text/html; charset=utf-8').send(PAGE));
  for (const asset of DOCS_ASSETS) {
    app.get(asset.path, async (_req, reply) => {
      const body = asset.file === null ? INIT : await distFile(asset.file);
      return status(reply, 200).header('content-type', asset.type).header('X-Content-Type-Options', 'nosniff').send(body);
    });
  }
}
