/**
 * The HTTP adapter: one fastify instance per listener (HTTP on 6868, HTTPS on 6869), serving the
 * API v2 under `/api`. Every response carries `Access-Control-Allow-Origin: *`,
 * `Cache-Control: max-age=0` and `Expires` equal to `Date`, as the reference's do; CORS preflight
 * requests are answered (the reference refused them with 501).
 */
import type { TlsOptions } from 'node:tls';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { dispatchApi } from './api-v2/routes.js';
import { MQAPI_CALLS, mqapi } from './mqapi/routes.js';
import { registerWeb } from './web.js';
import type { HttpContext } from './context.js';
import { clientAddress, MAX_PARAM } from './params.js';
import { FASTIFY_JSON_TYPE, httpDate, notFound, sendText, status, unrecognised } from './reply.js';

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

  // Hooks in callback style: the hot path (GET with keep-alive) allocates no promise for them.
  let held = 0;
  app.addHook('onRequest', (req, reply, done) => {
    const limiter = ctx.rateLimiter;
    if (limiter.hit(clientAddress(req), ctx.hub.seconds())) return done();
    const refuse = (): void => void status(reply, 429).send('');
    if (held >= MAX_HELD) return refuse();
    held++;
    // REF holds a refused request before answering 429 (it slows down a runaway client)
    setTimeout(() => {
      held--;
      refuse();
    }, limiter.options.delaySeconds * 1000).unref();
  });

  app.addHook('onSend', (_req, reply, payload, done) => {
    commonHeaders(reply);
    if (reply.getHeader('content-type') === FASTIFY_JSON_TYPE) reply.header('content-type', 'application/json');
    done(null, payload);
  });

  // before any child context is registered: children inherit the error handler they are born with
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const code = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (code >= 500) ctx.log.error({ err, path: req.url.split('?', 1)[0] }, 'HTTP request failed');
    const text =
      code === 413 ? 'Request body too large' : code === 415 ? 'Unsupported content type' : code < 500 ? 'Bad request' : 'Internal error';
    return sendText(reply, code, text);
  });

  const api = (req: FastifyRequest, reply: FastifyReply) => dispatchApi(ctx, req, reply);
  app.route({ method: ['GET', 'HEAD', 'DELETE'], url: '/api', handler: api });
  app.route({ method: ['GET', 'HEAD', 'DELETE'], url: '/api/*', handler: api });
  for (const call of MQAPI_CALLS) {
    app.route({ method: ['GET', 'HEAD', 'PUT', 'DELETE'], url: `/mqapi/${call}`, handler: (_req, reply) => unrecognised(reply) });
  }
  // Form bodies (urlencoded or multipart) are parsed only on POST and PUT routes: the multipart
  // plugin's hooks would otherwise run on every request
  await app.register(async (posts) => {
    await posts.register(formbody, { bodyLimit: ctx.bodyLimit });
    await posts.register(multipart, {
      attachFieldsToBody: 'keyValues',
      limits: { fieldNameSize: 100, fieldSize: MAX_PARAM + 1, fields: 20, files: 0, fileSize: 0, parts: 20 },
    });
    posts.route({ method: ['POST', 'PUT'], url: '/api', handler: api });
    posts.route({ method: ['POST', 'PUT'], url: '/api/*', handler: api });
    for (const call of MQAPI_CALLS) posts.post(`/mqapi/${call}`, (req, reply) => mqapi(ctx, req, reply, call));
  });

  await registerWeb(app, ctx.web);
  // live streams are hijacked replies: fastify's close would wait for them
  app.addHook('preClose', (done) => {
    for (const end of [...ctx.liveStreams]) end();
    done();
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

  return app;
}
