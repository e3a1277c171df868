/**
 * The operators' endpoints: `GET /health` (liveness), `GET /ready` (readiness) and, with
 * `--metrics-token`, `GET /metrics` (Prometheus). None of them is rate limited (src/http/app.ts
 * lets them through); `/metrics` checks its bearer token through the login throttle, per address
 * only: wrong tokens from one address get that address 429, never a scraper elsewhere (nor one
 * that has the right token, when the token is long enough not to be guessed).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sameSecret, STRONG_TOKEN } from '../core/crypto/same-secret.js';
import type { HttpContext, OpsContext } from './context.js';
import { sendJson, sendText, status, unauthorized } from './reply.js';
import { tooManyLogins } from './auth.js';
import type { GuardOutcome } from '../auth/login-guard.js';
import { clientAddress } from './params.js';

/** The paths served here: the rate limiter leaves them alone. */
export const OPS_PATHS: ReadonlySet<string> = new Set(['/health', '/ready', '/metrics']);

/** The throttle's account of the metrics token. */
const METRICS_ACCOUNT = 'metrics';

function bearer(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return null;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}

async function metrics(ctx: HttpContext, m: NonNullable<OpsContext['metrics']>, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const given = bearer(req);
  const refuse = (): FastifyReply => unauthorized(reply.header('WWW-Authenticate', 'Bearer realm="vts metrics"'));
  if (given === null) return refuse();
  const address = clientAddress(req);
  const right = sameSecret(given, m.token);
  // a right token that cannot be guessed is served whatever the throttle says; a short one is
  // throttled like a password, so that it cannot be found by trying
  if (!(right && m.token.length >= STRONG_TOKEN)) {
    const outcome = await ctx.guard.attempt(address, METRICS_ACCOUNT, async () => (right ? true : null), { perAddress: true });
    if (!outcome.ok) return refused(ctx, reply, address, outcome, refuse);
  }
  const text = await m.render();
  return status(reply, 200).header('Content-Type', m.contentType).send(text);
}

function refused(ctx: HttpContext, reply: FastifyReply, address: string, outcome: GuardOutcome<true> & { ok: false }, refuse: () => FastifyReply): FastifyReply {
  // like a wrong password: a scraper with an old token would otherwise fail without a trace
  if (outcome.throttled) {
    ctx.log.info({ address, limit: outcome.limit }, 'metrics scrape refused: too many wrong tokens');
    return tooManyLogins(reply, outcome);
  }
  ctx.log.info({ address }, 'metrics scrape refused: wrong bearer token');
  return refuse();
}

export function registerOps(app: FastifyInstance, ctx: HttpContext): void {
  const ops = ctx.ops;
  app.get('/health', (_req, reply) =>
    sendJson(reply, 200, { status: 'ok', version: ops.version, uptimeSeconds: Math.floor((Date.now() - ops.startedAt) / 1000) }),
  );
  app.get('/ready', async (_req, reply) => {
    const r = await ops.readiness();
    return sendJson(reply, r.ready ? 200 : 503, { status: r.status, checks: r.checks });
  });
  const m = ops.metrics;
  if (m) app.get('/metrics', (req, reply) => metrics(ctx, m, req, reply));
  else app.get('/metrics', (_req, reply) => sendText(reply, 404, 'not found: /metrics is served when vts serve runs with --metrics-token'));
}
