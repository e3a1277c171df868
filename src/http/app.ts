/**
 * The HTTP adapter: one fastify instance per listener (HTTP on 6868, HTTPS on 6869), serving the
 * API v2 under `/api`. Every response carries `Access-Control-Allow-Origin: *`,
 * `Cache-Control: max-age=0` and `Expires` equal to `Date`, as the reference's do; CORS preflight
 * requests are answered (the reference refused them with 501).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TlsOptions } from 'node:tls';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { apiErrorStyle, dispatchApi } from './api-hall.js';
import { registerFormParsers } from './forms.js';
import { MQAPI_CALLS, mqapi } from './mqapi/routes.js';
import { registerOpenApi } from './openapi/routes.js';
import { registerWeb } from './web.js';
import type { HttpContext } from './context.js';
import { clientAddress, loggedPath } from './params.js';
import { FASTIFY_JSON_TYPE, httpDate, notFound, sendError, status, unrecognised, type ErrorStyle } from './reply.js';
import { VtsError } from '../errors.js';
import { requestFailure } from './request-errors.js';
import { OPS_PATHS, registerOps } from './ops.js';
import { routeGroup } from './route-group.js';
import { NO_TELEMETRY } from '../hub/telemetry.js';
import { fastStatus, limiterVerdicts, type Answered } from './fast-status.js';

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

const NUL_IN_URL = new VtsError('VTS_ERR_BAD_REQUEST', 'Malformed URL: a NUL character (%00)');

const isApi = (path: string) => path === '/api' || path.startsWith('/api/');


/** The error style of the call a request is for (JSON for the command and web APIs, else text). */
function errorStyle(req: FastifyRequest, path: string): ErrorStyle {
  return isApi(path) ? apiErrorStyle(req.method, req.url) : 'text';
}

export async function buildHttpApp(ctx: HttpContext, tls?: TlsOptions): Promise<FastifyInstance> {
  /**
   * The answer of a request that failed outside its handler's own answers: the client's mistakes
   * (src/http/request-errors.ts) are 4xx logged at debug; anything else is a 500 with its stack.
   */
  const failed = (err: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = (req.url ?? '').split('?', 1)[0] ?? '';
    const f = requestFailure(err);
    // never the query (passwords) nor a token in the path; the parsers' messages may quote the input
    const logged = { path: loggedPath(path), method: req.method };
    if (f.client) {
      const e = err as { code?: unknown; cause?: unknown } | null;
      const cause = e?.cause instanceof Error ? e.cause.message : undefined;
      ctx.log.debug({ ...logged, status: f.status, code: e?.code, reason: f.message, cause }, 'HTTP request refused');
    } else {
      ctx.log.error({ err, ...logged }, 'HTTP request failed');
    }
    return sendError(reply, { code: f.error, message: f.message, status: f.status }, errorStyle(req, path));
  };

  const app = Fastify({
    logger: false, // vts logs itself: the default request log would carry ?password=… in the URL
    bodyLimit: ctx.bodyLimit,
    // HEAD is answered like GET on every route, without the body (docs/compatibility.md)
    exposeHeadRoutes: true,
    keepAliveTimeout: 30_000,
    // the request timeout and closing connections at shutdown: src/http/listener.ts (vts listens itself)
    return503OnClosing: true,
    // a URL the router cannot decode: our 400, with the headers every response carries
    frameworkErrors: (err, req, reply) => failed(err, req, commonHeaders(reply)),
    ...(tls ? { https: tls } : {}),
    // behind trusted HTTP proxies (--trust-proxy) the client is the one X-Forwarded-For names
    ...(ctx.trustProxy.length > 0 ? { trustProxy: [...ctx.trustProxy] } : {}),
  }) as unknown as FastifyInstance;

  // Hooks in callback style: the hot path (GET with keep-alive) allocates no promise for them.
  let held = 0;
  app.addHook('onRequest', (req, reply, done) => {
    // a NUL character is no part of a path, a name or a password: refused before anything looks at it
    if (req.url.includes('%00')) return void failed(NUL_IN_URL, req, reply);
    const limiter = ctx.rateLimiter;
    // health checks and scrapes come every few seconds from one address: never limited (a path
    // under /api/ is never theirs: fastify builds routeOptions anew on each call, not for nothing)
    if (!req.url.startsWith('/api/') && OPS_PATHS.has(req.routeOptions.url ?? '')) return done();
    // counted already when it came by the answer before fastify (fast-status.ts)
    if (limiterVerdicts.get(req.raw) ?? limiter.hit(clientAddress(req), ctx.hub.seconds())) return done();
    ctx.hub.telemetry.httpThrottled();
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

  // the metrics of every answered request, and the access log at debug level: without either,
  // no hook at all on the hot path (the log level is set at start)
  const telemetry = ctx.hub.telemetry;
  const counted = telemetry !== NO_TELEMETRY;
  const logged = ctx.log.isLevelEnabled('debug');
  const answered: Answered | undefined = counted || logged ? (method, url, statusCode, ms, client) => {
    const group = routeGroup(method, url, ctx.commandService);
    if (counted) telemetry.httpRequest(group, statusCode, ms / 1000);
    // the path only (the query may hold a password), a token in the path masked, no headers
    if (logged) ctx.log.debug({ method, path: loggedPath(url), status: statusCode, ms: Math.round(ms * 10) / 10, client: client(), group }, 'HTTP request');
  } : undefined;
  if (answered) app.addHook('onResponse', (req, reply, done) => {
    answered(req.method, req.url ?? '', reply.statusCode, reply.elapsedTime, () => clientAddress(req));
    done();
  });

  // before any child context is registered: children inherit the error handler they are born with
  app.setErrorHandler((err, req, reply) => failed(err, req, reply));

  const api = (req: FastifyRequest, reply: FastifyReply) => dispatchApi(ctx, req, reply);
  app.route({ method: ['GET', 'DELETE'], url: '/api', handler: api });
  app.route({ method: ['GET', 'DELETE'], url: '/api/*', handler: api });
  for (const call of MQAPI_CALLS) {
    app.route({ method: ['GET', 'DELETE'], url: `/mqapi/${call}`, handler: (_req, reply) => unrecognised(reply) });
  }
  // Form bodies (urlencoded or multipart) are parsed only on POST and PUT routes: the multipart
  // plugin's hooks would otherwise run on every request
  await app.register(async (posts) => {
    await registerFormParsers(posts, ctx.bodyLimit);
    // PUT /mqapi/*: a 404 like GET, after its body (a broken one is a 400 like on every PUT)
    for (const call of MQAPI_CALLS) posts.put(`/mqapi/${call}`, (_req, reply) => unrecognised(reply));
    posts.route({ method: ['POST', 'PUT'], url: '/api', handler: api });
    posts.route({ method: ['POST', 'PUT'], url: '/api/*', handler: api });
    for (const call of MQAPI_CALLS) posts.post(`/mqapi/${call}`, (req, reply) => mqapi(ctx, req, reply, call));
  });

  registerOps(app, ctx);
  await registerOpenApi(app);
  await registerWeb(app, ctx.web);
  // live streams are hijacked replies: fastify's close would wait for them
  let closing = false; // read by the answer before fastify (below)
  app.addHook('preClose', (done) => {
    closing = true;
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

  app.setNotFoundHandler((req, reply) => (isApi(req.url.split('?', 1)[0] ?? '') ? unrecognised(reply) : notFound(reply)));

  // GET /api/status/<id> with a session cookie, answered before fastify (the client is the socket's
  // peer: behind trusted proxies every request goes through fastify)
  if (ctx.trustProxy.length === 0) {
    // from the call of close on, every request goes to fastify (which answers 503 once its own
    // closing begins, a moment later; the preClose hook above, should fastify close by itself)
    const closeApp = app.close.bind(app) as (...a: unknown[]) => unknown;
    app.close = ((...a: unknown[]) => {
      closing = true;
      return closeApp(...a);
    }) as unknown as typeof app.close;
    const server = app.server;
    const [fastifyListener] = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
    if (fastifyListener && server.listenerCount('request') === 1) {
      server.removeListener('request', fastifyListener);
      server.on('request', fastStatus(ctx, () => closing, fastifyListener, answered));
    }
  }

  return app;
}
