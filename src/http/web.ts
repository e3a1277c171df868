/**
 * The web dashboard's files: the Vite build in `dist/web` served at `/` (index.html,
 * `/assets/*`), and `/web/config.json` with the map tile settings. Without a build, `/` says how
 * to make one. API calls stay under `/api/`.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { sendJson, sendText } from './reply.js';
import { registerAccountLinks } from './web-api/account-links.js';

export interface WebOptions {
  /** Folder of the built dashboard; default: dist/web beside the code. */
  dir?: string;
  tileUrl: string;
  tileAttribution: string;
}

/** dist/web: beside dist/http (built) or under the project (run from src/ with tsx). */
export function defaultWebDir(): string | undefined {
  for (const rel of ['../web/', '../../dist/web/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(dir + 'index.html')) return dir;
  }
  return undefined;
}

/** The dashboard's pages may only talk to this server; map tiles are images from anywhere. */
const CSP = [
  "default-src 'self'",
  "img-src 'self' data: blob: https: http:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

export async function registerWeb(app: FastifyInstance, opts: WebOptions): Promise<void> {
  registerAccountLinks(app);
  app.get('/web/config.json', (_req, reply) => sendJson(reply, 200, { tileAttribution: opts.tileAttribution, tileUrl: opts.tileUrl }));
  const dir = opts.dir ?? defaultWebDir();
  if (!dir || !existsSync(dir + '/index.html')) {
    app.get('/', (_req, reply) => sendText(reply, 503, 'The web dashboard is not built: run `npm run build`.\n'));
    return;
  }
  await app.register(async (web) => {
    web.addHook('onSend', (_req, reply, payload, done) => {
      reply.header('Content-Security-Policy', CSP).header('X-Frame-Options', 'DENY').header('X-Content-Type-Options', 'nosniff').header('Referrer-Policy', 'same-origin');
      done(null, payload);
    });
    await web.register(fastifyStatic, { root: dir, prefix: '/', wildcard: false, index: ['index.html'], cacheControl: false });
  });
}
