/**
 * The hall of `/api`: the one dispatcher of every call under `/api` (docs/protocol/http-api-v2.md §2). Each group
 * of calls registers its routes in the table of its folder (`routes.ts`: method, path, handler with
 * its options, OpenAPI description); the hall finds a call by `<METHOD>:<first segment after /api>`.
 * Unknown calls are 404 before any authentication, then authentication (401), then rights (403
 * `Insufficient rights`), then the handler (ownership: 403 `Forbidden`). The custom API
 * (src/http/custom-api/) authenticates by itself.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasRight } from '../core/auth/rights.js';
import { sameSecret } from '../core/crypto/same-secret.js';
import { authenticate, isThrottled, tooManyLogins } from './auth.js';
import type { HttpContext } from './context.js';
import { apiSegments, MAX_PARAM, requestParams } from './params.js';
import { badRequest, insufficientRights, sendError, unauthorized, unrecognised, type ErrorStyle } from './reply.js';
import type { ApiGroup, ApiRoute } from './api-call.js';
import { API_V2 } from './api-v2/routes.js';
import { COMMAND_API } from './command/routes.js';
import { customApiHandler } from './custom-api/dispatch.js';
import { WEB_API } from './web-api/routes.js';

/** The groups of `/api` calls, each with its table (the custom API, found by name, is apart). */
export const API_GROUPS: readonly ApiGroup[] = [API_V2, COMMAND_API, WEB_API];

/** What the hall knows of one call (`<METHOD>:<fn>`): its route, group and error style. */
interface HallCall {
  route: ApiRoute;
  group: ApiGroup['name'];
  errors: ErrorStyle;
}

/** The calls of the groups' tables by `<METHOD>:<fn>`; the rows of one call must agree. */
function hallCalls(groups: readonly ApiGroup[]): Map<string, HallCall> {
  const calls = new Map<string, HallCall>();
  for (const group of groups) {
    for (const row of group.rows) {
      const key = `${row.method}:${row.path.split('/')[2] ?? ''}`;
      const call: HallCall = { route: row.route, group: group.name, errors: row.errors ?? group.errors };
      const had = calls.get(key);
      if (had && (had.route !== call.route || had.group !== call.group || had.errors !== call.errors)) {
        throw new Error(`/api: ${row.method} ${row.path} is another call than the earlier rows of ${key}`);
      }
      calls.set(key, had ?? call);
    }
  }
  return calls;
}

const CALLS = hallCalls(API_GROUPS);

/** The route of every call of the groups, by `<METHOD>:<fn>` (`GET:status`). */
export const API_ROUTES: ReadonlyMap<string, ApiRoute> = new Map([...CALLS].map(([key, call]) => [key, call.route]));

const callOf = (method: string, fn: string): HallCall | undefined => CALLS.get(`${method === 'HEAD' ? 'GET' : method}:${fn}`);

/** The group of the `/api` call `<method>:<fn>`, if it is one of the groups' calls. */
export function apiCallGroup(method: string, fn: string): ApiGroup['name'] | undefined {
  return callOf(method, fn)?.group;
}

/** How the `/api` call of `method` and `url` answers an error (src/http/reply.ts `sendError`). */
export function apiErrorStyle(method: string, url: string): ErrorStyle {
  return callOf(method, apiSegments(url)?.[0] ?? '')?.errors ?? 'text';
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'DELETE']);

/** A cookie of a web session must bring its CSRF token on every state-changing call. */
function csrfOk(req: FastifyRequest, session: { csrf?: string } | undefined): boolean {
  if (!session?.csrf || !STATE_CHANGING.has(req.method)) return true;
  const given = req.headers['x-csrf-token'];
  return typeof given === 'string' && sameSecret(given, session.csrf);
}

export async function dispatchApi(ctx: HttpContext, req: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const segments = apiSegments(req.url);
  if (segments === null) return badRequest(reply, 'Malformed URL encoding');
  const [fn = '', ...args] = segments;
  // HEAD is answered like GET (fastify drops the body); REF refused it with 501
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const route = API_ROUTES.get(`${method}:${fn}`);
  const maybeCustom = !route && (method === 'GET' || method === 'POST') && (fn === ctx.commandService || fn === 'call');
  if (!route && !maybeCustom) return unrecognised(reply);
  const params = requestParams(req);
  if (params === null) return badRequest(reply, `Parameter too long (${MAX_PARAM} characters at most)`);
  if (!route) {
    // the custom API (cmd, csv) authenticates with the vehicle id and its password itself
    const custom = customApiHandler(ctx, fn, args, params);
    return custom ? custom(ctx, req, reply, params) : unrecognised(reply);
  }
  if (route.public) {
    return route.handler({ ctx, req, reply, principal: { ownerId: 0, ownerName: '', permit: '' }, args, params });
  }
  const principal = await authenticate(ctx, req, params);
  if (!principal) return route.jsonUnauthorized ? sendError(reply, { code: 'VTS_ERR_AUTH', message: 'not signed in' }) : unauthorized(reply);
  if (isThrottled(principal)) return tooManyLogins(reply, principal);
  if (!csrfOk(req, principal.session)) {
    return sendError(reply, { code: 'VTS_ERR_CSRF', message: 'missing or wrong X-CSRF-Token' });
  }
  if (route.rights && !hasRight(principal.permit, ...route.rights)) return insufficientRights(reply);
  return route.handler({ ctx, req, reply, principal, args, params });
}
