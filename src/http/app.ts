/**
 * The HTTP adapter: one fastify instance per listener (HTTP on 6868, HTTPS on 6869), serving the
 * API v2 under `/api`. Every response carries `Access-Control-Allow-Origin: *`,
 * `Cache-Control: max-age=0` and `Expires` equal to `Date`, as the reference's do; CORS preflight
 * requests are answered (the reference refused them with 501).
 */
import type { TlsOptions } from 'node:tls';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import { dispatchApi } from './api-v2/routes.js';
import type { HttpContext } from './context.js';
import { clientAddress, MAX_PARAM } from './params.js';
import { httpDate, notFound, sendText, status, unrecognised } from './reply.js';

/** Refused requests held at once (REF holds each for 20 s); beyond this they are refused at once. */
const MAX_HELD = 1000;

/** The headers of every response: REF's `Date`, `Expires` = `Date`, `Cache-Control`, and CORS. */
function commonHeaders(reply: FastifyReply): FastifyReply {
  const date = httpDate();
  return reply
    .header('Date', date)
    .header('Expires', date)
    .header('Cache-Control', 'max-age=0')
    .header('Access-Control-Allow-Origin', '*');
}

export async function buildHttpApp(ctx: HttpContext, tls?: TlsOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false, // vts logs itself: the default request log would carry ?password=… in the URL
    bodyLimit: ctx.bodyLimit,
    exposeHeadRoutes: false,
    keepAliveTimeout: 30_000,
    requestTimeout: 30_000,
    forceCloseConnections: true,
    return503OnClosing: true,
    // a URL the router cannot decode: our 400, with the headers every response carries
    frameworkErrors: (_err, _req, reply) => sendText(commonHeaders(reply), 400, 'Malformed URL encoding'),
    ...(tls ? { https: tls } : {}),
  }) as unknown as FastifyInstance;

  await app.register(formbody, { bodyLimit: ctx.bodyLimit });
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fieldNameSize: 100, fieldSize: MAX_PARAM + 1, fields: 20, files: 0, fileSize: 0, parts: 20 },
  });

  let held = 0;
  app.addHook('onRequest', async (req, reply) => {
    const limiter = ctx.rateLimiter;
    if (limiter.hit(clientAddress(req), ctx.hub.seconds())) return;
    if (held < MAX_HELD) {
      held++;
      try {
        await new Promise((r) => setTimeout(r, limiter.options.delaySeconds * 1000).unref());
      } finally {
        held--;
      }
    }
    return status(reply, 429).send('');
  });

  app.addHook('onSend', async (_req, reply, payload) => {
    commonHeaders(reply);
    return payload;
  });

  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    url: '/api',
    handler: (req, reply) => dispatchApi(ctx, req, reply),
  });
  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    url: '/api/*',
    handler: (req, reply) => dispatchApi(ctx, req, reply),
  });

  // CORS preflight for every path
  app.options('*', (req, reply) => {
    const asked = req.headers['access-control-request-headers'];
    reply.header('Access-Control-Allow-Methods', 'GET, HEAD, POST, PUT, DELETE, OPTIONS');
    reply.header('Access-Control-Allow-Headers', typeof asked === 'string' && asked ? asked : 'Content-Type');
    reply.header('Access-Control-Max-Age', '86400');
    return status(reply, 204).send();
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?', 1)[0] ?? '';
    return path === '/api' || path.startsWith('/api/') ? unrecognised(reply) : notFound(reply);
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const code = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (code >= 500) ctx.log.error({ err, path: req.url.split('?', 1)[0] }, 'HTTP request failed');
    const text =
      code === 413 ? 'Request body too large' : code === 415 ? 'Unsupported content type' : code < 500 ? 'Bad request' : 'Internal error';
    return sendText(reply, code, text);
  });

  return app;
}
